package dev.rlx.llm.sample;

/**
 * Mirostat version 2, as llama.cpp: softmax, truncate at the first candidate whose surprise
 * {@code −log₂ p} exceeds {@code μ} (keeping at least one), renormalise, draw, and update
 * {@code μ ← μ − η·(−log₂ p − τ)}. Starts at {@code μ = 2τ}; selects the token itself.
 */
final class MirostatV2 implements Sampler {
    private final SurpriseTarget target;

    MirostatV2(long seed, float tau, float eta) {
        this.target = new SurpriseTarget("mirostat-v2", seed, tau, eta);
    }

    @Override
    public void apply(Candidates c) {
        c.softmax(true);
        int keep = 0;
        while (keep < c.size && !(Surprise.bits(c.p[keep]) > target.mu())) {
            keep++;
        }
        c.size = Math.max(keep, 1);
        target.drawAndLearn(c);
    }

    float mu() {
        return target.mu();
    }

    @Override
    public void reset() {
        target.reset();
    }

    @Override
    public String name() {
        return "mirostat-v2";
    }
}
