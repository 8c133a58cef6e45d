package dev.rlx.llm.sample;

import java.util.ArrayList;
import java.util.List;

/**
 * Sampling settings as flat fields with llama.cpp's defaults ({@code common_params_sampling}), turned into a
 * chain by {@link #intoChain()}. Start from {@link #defaults()} and change fields with {@link #toBuilder()}.
 *
 * <p>Disabled values are llama.cpp's: {@code topK <= 0}, {@code topP >= 1}, {@code minP <= 0},
 * {@code typicalP >= 1}, {@code topNSigma <= 0}, {@code xtcProbability <= 0} (or {@code xtcThreshold > 0.5}),
 * {@code dryMultiplier = 0}, penalties neutral ({@code repeatPenalty = 1}, frequency and presence 0),
 * {@code dynatempRange <= 0}, {@code mirostat = 0}.
 *
 * @param seed                unsigned 32-bit seed of dist, XTC and mirostat; {@link Samplers#RANDOM_SEED} (the default) is random
 * @param minKeep             least candidates top-p, min-p, typical and XTC keep (0)
 * @param topK                40
 * @param topP                0.95
 * @param minP                0.05
 * @param typicalP            1.0 (off)
 * @param temperature         0.8; {@code <= 0} is greedy
 * @param dynatempRange       0 (off): temperature varies in {@code [t − range, t + range]} with the entropy
 * @param dynatempExponent    1.0
 * @param penaltyLastN        64 tokens of history for the penalties
 * @param repeatPenalty       1.0 (off)
 * @param frequencyPenalty    0
 * @param presencePenalty     0
 * @param dryMultiplier       0 (off)
 * @param dryBase             1.75
 * @param dryAllowedLength    2
 * @param dryPenaltyLastN     64 tokens of history for DRY
 * @param drySequenceBreakers token-id sequences that end a repeat (llama.cpp's are the strings "\n", ":",
 *                            "\"", "*", which need a tokenizer to become ids; empty here)
 * @param topNSigma           −1 (off)
 * @param xtcProbability      0 (off)
 * @param xtcThreshold        0.1
 * @param mirostat            0 (off), 1 or 2
 * @param mirostatTau         5.0
 * @param mirostatEta         0.1
 */
public record SampleOpts(long seed, int minKeep, int topK, float topP, float minP, float typicalP, float temperature,
                         float dynatempRange, float dynatempExponent, int penaltyLastN, float repeatPenalty,
                         float frequencyPenalty, float presencePenalty, float dryMultiplier, float dryBase,
                         int dryAllowedLength, int dryPenaltyLastN, List<List<Integer>> drySequenceBreakers,
                         float topNSigma, float xtcProbability, float xtcThreshold, int mirostat, float mirostatTau,
                         float mirostatEta) {

    /** Mirostat 1.0 estimates from the 100 most probable tokens, as llama.cpp's chain. */
    private static final int MIROSTAT_M = 100;

    public SampleOpts {
        Seeds.check(seed);
        if (mirostat < 0 || mirostat > 2) {
            throw new SamplingException("mirostat", -1, "mirostat must be 0 (off), 1 or 2 but is " + mirostat);
        }
        if (dryPenaltyLastN < 0) {
            throw new SamplingException("dryPenaltyLastN", -1, "dryPenaltyLastN must be >= 0 (a window of tokens; 0 = off) but is "
                    + dryPenaltyLastN);
        }
        Params.atLeast("SampleOpts", "minKeep", minKeep, 0);
        Params.atLeast("SampleOpts", "penaltyLastN", penaltyLastN, 0);
        Params.atLeast("SampleOpts", "dryAllowedLength", dryAllowedLength, 0);
        float[] values = {topP, minP, typicalP, temperature, dynatempRange, dynatempExponent, repeatPenalty,
            frequencyPenalty, presencePenalty, dryMultiplier, dryBase, topNSigma, xtcProbability, xtcThreshold,
            mirostatTau, mirostatEta};
        String[] names = {"topP", "minP", "typicalP", "temperature", "dynatempRange", "dynatempExponent",
            "repeatPenalty", "frequencyPenalty", "presencePenalty", "dryMultiplier", "dryBase", "topNSigma",
            "xtcProbability", "xtcThreshold", "mirostatTau", "mirostatEta"};
        for (int i = 0; i < values.length; i++) {
            Params.notNaN("SampleOpts", names[i], values[i]);
        }
        drySequenceBreakers = drySequenceBreakers.stream().map(List::copyOf).toList();
        for (List<Integer> b : drySequenceBreakers) {
            if (b.isEmpty()) {
                throw new SamplingException("drySequenceBreakers", -1, "SampleOpts: drySequenceBreakers holds an empty sequence");
            }
        }
    }

    /** llama.cpp's defaults. */
    public static SampleOpts defaults() {
        return new SampleOpts(Samplers.RANDOM_SEED, 0, 40, 0.95f, 0.05f, 1.0f, 0.8f, 0f, 1f, 64, 1f, 0f, 0f, 0f,
                1.75f, 2, 64, List.of(), -1f, 0f, 0.1f, 0, 5f, 0.1f);
    }

    /** Temperature 0 (argmax) and nothing else. */
    public static SampleOpts greedy() {
        return defaults().toBuilder().temperature(0f).topK(0).topP(1f).minP(0f).build();
    }

    /** Temperature {@code <= 0} with mirostat off: the chain always picks the highest logit. */
    public boolean isGreedy() {
        return temperature <= 0f && mirostat == 0;
    }

    /**
     * Whether only top-k, top-p and temperature are active (no penalties, DRY, top-nσ, typical, min-p, XTC,
     * dynamic temperature or mirostat). Such chains never sort the vocabulary: top-k is filled straight from
     * the logits by a heap (the chain's fast path) and top-p sorts only its nucleus.
     */
    public boolean isClassic() {
        return mirostat == 0 && !penaltiesActive() && !dryActive() && topNSigma <= 0f && typicalP >= 1f
                && minP <= 0f && !xtcActive() && dynatempRange <= 0f;
    }

    /**
     * llama.cpp's chain: penalties → DRY → top-nσ → top-k → typical → top-p → min-p → XTC → temperature(-ext)
     * → dist, each stage left out when disabled; with mirostat, temperature → mirostat v1 or v2 only. A chain
     * that starts with top-k takes the fast path (see {@link SamplerChain}).
     */
    public SamplerChain intoChain() {
        return intoChain(true);
    }

    /** {@link #intoChain()}, optionally without the fast path (to compare or to debug). */
    public SamplerChain intoChain(boolean allowFastPath) {
        List<Sampler> s = new ArrayList<>();
        if (mirostat != 0) {
            s.add(Samplers.temperature(temperature));
            s.add(mirostat == 1 ? new Mirostat(0, seed, mirostatTau, mirostatEta, MIROSTAT_M)
                    : Samplers.mirostatV2(seed, mirostatTau, mirostatEta));
            return SamplerChain.of(s, false);
        }
        if (penaltiesActive()) {
            s.add(Samplers.penalties(penaltyLastN, repeatPenalty, frequencyPenalty, presencePenalty));
        }
        if (dryActive()) {
            List<int[]> breakers = drySequenceBreakers.stream()
                    .map(b -> b.stream().mapToInt(Integer::intValue).toArray()).toList();
            s.add(Samplers.dry(dryMultiplier, dryBase, dryAllowedLength, dryPenaltyLastN, breakers));
        }
        if (topNSigma > 0f) {
            s.add(Samplers.topNSigma(topNSigma));
        }
        if (topK > 0) {
            s.add(Samplers.topK(topK));
        }
        if (typicalP < 1f) {
            s.add(Samplers.typical(typicalP, minKeep));
        }
        if (topP < 1f) {
            s.add(Samplers.topP(topP, minKeep));
        }
        if (minP > 0f) {
            s.add(Samplers.minP(minP, minKeep));
        }
        if (xtcActive()) {
            s.add(Samplers.xtc(xtcProbability, xtcThreshold, minKeep, seed));
        }
        s.add(Samplers.temperatureExt(temperature, dynatempRange, dynatempExponent));
        s.add(Samplers.dist(seed));
        return SamplerChain.of(s, allowFastPath);
    }

    private boolean penaltiesActive() {
        return penaltyLastN != 0 && (repeatPenalty != 1f || frequencyPenalty != 0f || presencePenalty != 0f);
    }

    private boolean dryActive() {
        return dryMultiplier != 0f && dryBase >= 1f && dryPenaltyLastN != 0;
    }

    private boolean xtcActive() {
        return xtcProbability > 0f && xtcThreshold <= 0.5f;
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Copies a {@link SampleOpts} and changes single fields; {@link #build()} validates. */
    public static final class Builder {
        private long seed;
        private int minKeep;
        private int topK;
        private float topP;
        private float minP;
        private float typicalP;
        private float temperature;
        private float dynatempRange;
        private float dynatempExponent;
        private int penaltyLastN;
        private float repeatPenalty;
        private float frequencyPenalty;
        private float presencePenalty;
        private float dryMultiplier;
        private float dryBase;
        private int dryAllowedLength;
        private int dryPenaltyLastN;
        private List<List<Integer>> drySequenceBreakers;
        private float topNSigma;
        private float xtcProbability;
        private float xtcThreshold;
        private int mirostat;
        private float mirostatTau;
        private float mirostatEta;

        private Builder(SampleOpts o) {
            seed = o.seed;
            minKeep = o.minKeep;
            topK = o.topK;
            topP = o.topP;
            minP = o.minP;
            typicalP = o.typicalP;
            temperature = o.temperature;
            dynatempRange = o.dynatempRange;
            dynatempExponent = o.dynatempExponent;
            penaltyLastN = o.penaltyLastN;
            repeatPenalty = o.repeatPenalty;
            frequencyPenalty = o.frequencyPenalty;
            presencePenalty = o.presencePenalty;
            dryMultiplier = o.dryMultiplier;
            dryBase = o.dryBase;
            dryAllowedLength = o.dryAllowedLength;
            dryPenaltyLastN = o.dryPenaltyLastN;
            drySequenceBreakers = o.drySequenceBreakers;
            topNSigma = o.topNSigma;
            xtcProbability = o.xtcProbability;
            xtcThreshold = o.xtcThreshold;
            mirostat = o.mirostat;
            mirostatTau = o.mirostatTau;
            mirostatEta = o.mirostatEta;
        }

        public Builder seed(long v) { seed = v; return this; }

        public Builder minKeep(int v) { minKeep = v; return this; }

        public Builder topK(int v) { topK = v; return this; }

        public Builder topP(float v) { topP = v; return this; }

        public Builder minP(float v) { minP = v; return this; }

        public Builder typicalP(float v) { typicalP = v; return this; }

        public Builder temperature(float v) { temperature = v; return this; }

        public Builder dynatempRange(float v) { dynatempRange = v; return this; }

        public Builder dynatempExponent(float v) { dynatempExponent = v; return this; }

        public Builder penaltyLastN(int v) { penaltyLastN = v; return this; }

        public Builder repeatPenalty(float v) { repeatPenalty = v; return this; }

        public Builder frequencyPenalty(float v) { frequencyPenalty = v; return this; }

        public Builder presencePenalty(float v) { presencePenalty = v; return this; }

        public Builder dryMultiplier(float v) { dryMultiplier = v; return this; }

        public Builder dryBase(float v) { dryBase = v; return this; }

        public Builder dryAllowedLength(int v) { dryAllowedLength = v; return this; }

        public Builder dryPenaltyLastN(int v) { dryPenaltyLastN = v; return this; }

        public Builder drySequenceBreakers(List<List<Integer>> v) { drySequenceBreakers = v; return this; }

        public Builder topNSigma(float v) { topNSigma = v; return this; }

        public Builder xtcProbability(float v) { xtcProbability = v; return this; }

        public Builder xtcThreshold(float v) { xtcThreshold = v; return this; }

        public Builder mirostat(int v) { mirostat = v; return this; }

        public Builder mirostatTau(float v) { mirostatTau = v; return this; }

        public Builder mirostatEta(float v) { mirostatEta = v; return this; }

        public SampleOpts build() {
            return new SampleOpts(seed, minKeep, topK, topP, minP, typicalP, temperature, dynatempRange,
                    dynatempExponent, penaltyLastN, repeatPenalty, frequencyPenalty, presencePenalty, dryMultiplier,
                    dryBase, dryAllowedLength, dryPenaltyLastN, drySequenceBreakers, topNSigma, xtcProbability,
                    xtcThreshold, mirostat, mirostatTau, mirostatEta);
        }
    }
}
