package dev.rlx.llm.sample;

import dev.rlx.runtime.random.Mt19937;

/**
 * The state both Mirostat versions share: the running surprise bound {@code μ} (starting at {@code 2τ}), its
 * learning rate {@code η}, and the seeded generator that draws the token. {@link #drawAndLearn} ends a step
 * the way llama.cpp does: renormalise the kept candidates, draw one, and move {@code μ} toward the target
 * surprise, {@code μ ← μ − η·(−log₂ p − τ)}.
 */
final class SurpriseTarget {
    private final long seed;
    private final float tau;
    private final float eta;
    private final Mt19937 rng;
    private float mu;

    SurpriseTarget(String sampler, long seed, float tau, float eta) {
        this.seed = Seeds.check(seed);
        this.tau = Params.finite(sampler, "tau", tau);
        this.eta = Params.finite(sampler, "eta", eta);
        this.rng = new Mt19937(Seeds.resolve(seed));
        this.mu = 2f * tau;
    }

    float mu() {
        return mu;
    }

    /** Softmax over the kept candidates, draws one (selecting it), and updates {@code μ} from its surprise. */
    void drawAndLearn(Candidates c) {
        c.softmax(true);
        int idx = Discrete.draw(c.p, c.size, rng);
        c.selected = idx;
        mu = mu - eta * (Surprise.bits(c.p[idx]) - tau);
    }

    void reset() {
        mu = 2f * tau;
        rng.seed(Seeds.resolve(seed));
    }
}
