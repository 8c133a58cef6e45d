package dev.rlx.runtime.sample;

import dev.rlx.runtime.random.Mt19937;

/**
 * Mirostat version 2, as llama.cpp: softmax, truncate at the first candidate whose surprise
 * {@code −log₂ p} exceeds {@code μ} (keeping at least one), renormalise, draw, and update
 * {@code μ ← μ − η·(−log₂ p − τ)}. Starts at {@code μ = 2τ}; selects the token itself.
 */
final class MirostatV2 implements Sampler {
    private final long seed;
    private final float tau;
    private final float eta;
    private final Mt19937 rng;
    private float mu;

    MirostatV2(long seed, float tau, float eta) {
        this.seed = Seeds.check(seed);
        this.tau = Params.finite("mirostat-v2", "tau", tau);
        this.eta = Params.finite("mirostat-v2", "eta", eta);
        this.rng = new Mt19937(Seeds.resolve(seed));
        this.mu = 2f * tau;
    }

    @Override
    public void apply(Candidates c) {
        c.softmax(true);
        int keep = 0;
        while (keep < c.size && !(Surprise.bits(c.p[keep]) > mu)) {
            keep++;
        }
        c.size = Math.max(keep, 1);
        c.softmax(true);
        int idx = Discrete.draw(c.p, c.size, rng);
        c.selected = idx;
        mu = mu - eta * (Surprise.bits(c.p[idx]) - tau);
    }

    float mu() {
        return mu;
    }

    @Override
    public void reset() {
        mu = 2f * tau;
        rng.seed(Seeds.resolve(seed));
    }

    @Override
    public String name() {
        return "mirostat-v2";
    }
}
