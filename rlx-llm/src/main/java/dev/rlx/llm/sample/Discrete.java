package dev.rlx.llm.sample;

import dev.rlx.runtime.random.StdDistributions;
import dev.rlx.runtime.random.UniformRandomBitGenerator;

/**
 * libstdc++'s {@code std::discrete_distribution<int>(p)} drawn once: the weights are normalised in double,
 * their running sums formed (the last forced to 1), and the first index whose running sum is at least a
 * {@code generate_canonical<double>} draw is returned. Fewer than two weights: index 0 without a draw.
 */
final class Discrete {
    private Discrete() {}

    static int draw(float[] p, int n, UniformRandomBitGenerator g) {
        if (n < 2) {
            return 0;
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += p[i];
        }
        double u = StdDistributions.canonicalDouble(g);
        double cum = 0;
        for (int i = 0; i < n - 1; i++) {
            cum += p[i] / sum;
            if (cum >= u) {
                return i;
            }
        }
        return n - 1;
    }
}
