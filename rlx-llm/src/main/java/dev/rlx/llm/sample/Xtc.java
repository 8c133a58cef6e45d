package dev.rlx.llm.sample;

import dev.rlx.runtime.random.Mt19937;
import dev.rlx.runtime.random.StdDistributions;

/**
 * Exclude Top Choices (XTC): with chance {@code probability} (one {@code uniform_real_distribution<float>}
 * draw from its own {@code mt19937}), softmax (sorted) and drop every leading candidate with
 * {@code p >= threshold} except the last of them, provided at least {@code minKeep} remain. No-op when
 * {@code probability <= 0}, {@code threshold > 0.5} (then at most one token can pass it) or fewer than two
 * candidates.
 */
final class Xtc implements Sampler {
    private final float probability;
    private final float threshold;
    private final int minKeep;
    private final long seed;
    private final Mt19937 rng;

    Xtc(float probability, float threshold, int minKeep, long seed) {
        this.probability = Params.notNaN("xtc", "probability", probability);
        this.threshold = Params.notNaN("xtc", "threshold", threshold);
        this.minKeep = Params.atLeast("xtc", "minKeep", minKeep, 0);
        this.seed = Seeds.check(seed);
        this.rng = new Mt19937(Seeds.resolve(seed));
    }

    @Override
    public void apply(Candidates c) {
        if (probability <= 0f || threshold > 0.5f || c.size < 2) {
            return;
        }
        float chance = StdDistributions.uniformFloat(rng, 0f, 1f);
        if (chance > probability) {
            return;
        }
        c.softmax(true);
        int posLast = 0;
        for (int i = 0; i < c.size; i++) {
            if (c.p[i] >= threshold) {
                posLast = i;
            } else {
                break;
            }
        }
        if (c.size - posLast >= minKeep && posLast > 0) {
            c.dropFirst(posLast);
        }
    }

    @Override
    public void reset() {
        rng.seed(Seeds.resolve(seed));
    }

    @Override
    public String name() {
        return "xtc";
    }
}
