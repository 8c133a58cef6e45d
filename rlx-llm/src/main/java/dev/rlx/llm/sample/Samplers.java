package dev.rlx.llm.sample;

import java.util.List;

/**
 * Factories for the llama.cpp samplers. Each follows llama.cpp's {@code src/llama-sampling.cpp} maths and
 * no-op rules (noted per factory); where llama.cpp leaves ties to {@code std::sort}, RLX orders by lower token
 * id. Random samplers use their own {@code std::mt19937} seeded with {@code seed} (an unsigned 32-bit value;
 * {@link #RANDOM_SEED} draws a random one at construction and on every {@code reset}), so a given seed gives
 * the same tokens on every run.
 *
 * @throws SamplingException from every factory when a parameter is NaN or out of range, naming it
 */
public final class Samplers {
    private Samplers() {}

    /** llama.cpp's {@code LLAMA_DEFAULT_SEED}: seed the generator randomly. */
    public static final long RANDOM_SEED = 0xFFFFFFFFL;

    /** Selects the highest logit (the first on ties). */
    public static Sampler greedy() {
        return new Greedy();
    }

    /** Softmax, then one draw; sets the selected candidate and the probabilities. */
    public static Sampler dist(long seed) {
        return new Dist(seed);
    }

    /** {@code l /= t}; {@code t <= 0} keeps only the (first) maximum: greedy. */
    public static Sampler temperature(float t) {
        return new Temperature(t, 0f, 1f);
    }

    /**
     * Dynamic temperature: with {@code delta > 0}, {@code t' = max(0, t − δ) + 2δ·(H/ln n)^exponent} from the
     * entropy {@code H} of the candidates; otherwise plain {@link #temperature}.
     */
    public static Sampler temperatureExt(float t, float delta, float exponent) {
        return new Temperature(t, delta, exponent);
    }

    /** Keeps the {@code k} highest logits, sorted ({@code k <= 0}: no-op). */
    public static Sampler topK(int k) {
        return new TopK(k);
    }

    /** Nucleus: the most probable tokens whose mass reaches {@code p}, at least {@code minKeep} ({@code p >= 1}: no-op). */
    public static Sampler topP(float p, int minKeep) {
        return new TopP(p, minKeep);
    }

    /** Tokens with probability at least {@code p} times the top one, at least {@code minKeep} ({@code p <= 0}: no-op). */
    public static Sampler minP(float p, int minKeep) {
        return new MinP(p, minKeep);
    }

    /** Locally typical sampling with mass {@code p}, at least {@code minKeep} ({@code p >= 1}: no-op). */
    public static Sampler typical(float p, int minKeep) {
        return new Typical(p, minKeep);
    }

    /** Drops logits more than {@code n} standard deviations below the maximum ({@code n <= 0}: no-op). */
    public static Sampler topNSigma(float n) {
        return new TopNSigma(n);
    }

    /**
     * Exclude Top Choices: with chance {@code probability}, removes every token with {@code p >= threshold}
     * except the least probable of them, if {@code minKeep} remain ({@code threshold > 0.5}: no-op).
     */
    public static Sampler xtc(float probability, float threshold, int minKeep, long seed) {
        return new Xtc(probability, threshold, minKeep, seed);
    }

    /** Mirostat 1.0 for a vocabulary of {@code nVocab} tokens, using the top {@code m} to estimate; selects. */
    public static Sampler mirostat(int nVocab, long seed, float tau, float eta, int m) {
        Params.atLeast("mirostat", "nVocab", nVocab, 1);
        return new Mirostat(nVocab, seed, tau, eta, m);
    }

    /** Mirostat 2.0; selects. */
    public static Sampler mirostatV2(long seed, float tau, float eta) {
        return new MirostatV2(seed, tau, eta);
    }

    /**
     * Repetition ({@code repeat}, 1 = off), frequency and presence penalties over the last {@code lastN}
     * accepted tokens ({@code lastN = 0}: off).
     */
    public static Sampler penalties(int lastN, float repeat, float frequency, float presence) {
        return new Penalties(lastN, repeat, frequency, presence);
    }

    /**
     * DRY over the last {@code penaltyLastN} accepted tokens ({@code 0}: off); breakers are token-id sequences.
     * {@code penaltyLastN = -1} ("the context") needs {@link #dry(int, float, float, int, int, List)}.
     */
    public static Sampler dry(float multiplier, float base, int allowedLength, int penaltyLastN,
                              List<int[]> sequenceBreakers) {
        if (penaltyLastN == -1) {
            throw new SamplingException("penaltyLastN", -1, "dry: penaltyLastN -1 means the context size; pass it with "
                    + "dry(contextSize, multiplier, base, allowedLength, penaltyLastN, sequenceBreakers)");
        }
        return new Dry(Integer.MAX_VALUE, multiplier, base, allowedLength, penaltyLastN, sequenceBreakers);
    }

    /** DRY with the context size, which caps the window and is the window for {@code penaltyLastN = -1}. */
    public static Sampler dry(int contextSize, float multiplier, float base, int allowedLength, int penaltyLastN,
                              List<int[]> sequenceBreakers) {
        return new Dry(contextSize, multiplier, base, allowedLength, penaltyLastN, sequenceBreakers);
    }
}
