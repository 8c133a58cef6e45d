package dev.rlx.llm.sample;

/**
 * Mirostat (Basu et al., ICLR 2021), version 1, as llama.cpp: estimate the Zipf exponent {@code ŝ} from the
 * {@code m} most probable candidates, keep the top {@code k = ((ε·2^μ)/(1 − N^−ε))^(1/ŝ)} with
 * {@code ε = ŝ − 1} and {@code N} the vocabulary size, draw a token and move {@code μ} toward the target
 * surprise: {@code μ ← μ − η·(−log₂ p − τ)}. Starts at {@code μ = 2τ}; selects the token itself.
 * {@code nVocab = 0} means the candidate count at each call (the whole vocabulary when mirostat follows only
 * temperature, as in llama.cpp's chain).
 */
final class Mirostat implements Sampler {
    private final int nVocab;
    private final int m;
    private final SurpriseTarget target;

    Mirostat(int nVocab, long seed, float tau, float eta, int m) {
        this.nVocab = Params.atLeast("mirostat", "nVocab", nVocab, 0);
        this.target = new SurpriseTarget("mirostat", seed, tau, eta);
        this.m = Params.atLeast("mirostat", "m", m, 1);
    }

    @Override
    public void apply(Candidates c) {
        int vocab = nVocab > 0 ? nVocab : c.size;
        c.softmax(true);
        float sumTiBi = 0f;
        float sumTiSq = 0f;
        for (int i = 0; i < m - 1 && i < c.size - 1; i++) {
            float ti = (float) Math.log((float) (i + 2) / (float) (i + 1));
            float bi = (float) Math.log(c.p[i] / c.p[i + 1]);
            sumTiBi += ti * bi;
            sumTiSq += ti * ti;
        }
        float sHat = sumTiBi / sumTiSq;
        float epsilon = sHat - 1;
        float k = (float) Math.pow(epsilon * (float) Math.pow(2, target.mu())
                / (1 - (float) Math.pow(vocab, -epsilon)), 1 / sHat);
        TopK.keep(c, Math.max((int) k, 1));
        target.drawAndLearn(c);
    }

    /** The current μ (target surprise times two at the start). */
    float mu() {
        return target.mu();
    }

    @Override
    public void reset() {
        target.reset();
    }

    @Override
    public String name() {
        return "mirostat";
    }
}
