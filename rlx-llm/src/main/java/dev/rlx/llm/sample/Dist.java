package dev.rlx.llm.sample;

import dev.rlx.runtime.random.Mt19937;
import dev.rlx.runtime.random.StdDistributions;

/**
 * llama.cpp's {@code dist}: un-normalised weights {@code w_i = exp(l_i − max)} (float), their double sum
 * {@code S}, one draw {@code u ∈ [0, 1)} from {@code std::mt19937} through libstdc++'s
 * {@code uniform_real_distribution<double>}, and the first {@code i} whose running sum reaches {@code S·u} is
 * selected; {@code p_i = w_i / S} is stored. One candidate: selected without a draw. O(n).
 */
final class Dist implements Sampler {
    private final long seed;
    private final Mt19937 rng;

    Dist(long seed) {
        this.seed = Seeds.check(seed);
        this.rng = new Mt19937(Seeds.resolve(seed));
    }

    @Override
    public void apply(Candidates c) {
        int n = c.size;
        if (n == 0) {
            c.selected = -1;
            return;
        }
        c.selected = 0;
        if (n == 1) {
            c.p[0] = 1f;
            return;
        }
        float max = c.sorted ? c.logits[0] : c.maxLogit();
        if (Float.isInfinite(max)) {
            int at = -1; // the token id of the first +inf logit
            for (int i = 0; i < n && max > 0 && at < 0; i++) {
                at = c.logits[i] == Float.POSITIVE_INFINITY ? c.ids[i] : -1;
            }
            throw new SamplingException("logits", at, "dist: " + (max > 0 ? "logit of token " + at + " is +inf"
                    : "every logit is -inf") + "; no distribution to draw from");
        }
        float[] p = c.p;
        float[] l = c.logits;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            float w = (float) Math.exp(l[i] - max);
            p[i] = w;
            sum += w;
        }
        double target = sum * StdDistributions.uniformDouble(rng, 0, 1);
        double run = 0;
        int chosen = -1;
        for (int i = 0; i < n; i++) {
            if (chosen < 0) {
                run += p[i];
                if (run >= target) {
                    chosen = i;
                }
            }
            p[i] = (float) (p[i] / sum);
        }
        c.selected = chosen < 0 ? n - 1 : chosen;
    }

    @Override
    public void reset() {
        rng.seed(Seeds.resolve(seed));
    }

    @Override
    public String name() {
        return "dist";
    }
}
