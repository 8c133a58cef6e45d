package dev.rlx.llm.sample;

/**
 * Nucleus sampling (Holtzman et al., 2020): softmax over the candidates, then keep the most probable ones up
 * to and including the first whose cumulative probability reaches {@code p} with at least {@code minKeep}
 * kept ({@code p >= 1}: no-op). Like llama.cpp, a large unsorted list is not sorted whole: the best 256 are
 * found with a heap first; if their mass falls short, a histogram of the probability mass over
 * {@code max − logit} bounds the nucleus and only the candidates above that bound are sorted (they are the
 * best-ranked ones, so the running sums are the same as over a full sort). Only if even they fall short is
 * everything sorted. O(n) plus the sort of the nucleus.
 */
final class TopP implements Sampler {
    /** llama.cpp's thresholds for its adaptive partial sort. */
    private static final int ADAPTIVE_ABOVE = 1024;
    private static final int FIRST_GUESS = 256;

    /** Histogram buckets, 1/64 of a logit wide: 40 logits (a factor e^40) below the maximum. */
    private static final int BUCKETS = 2560;

    private final float p;
    private final int minKeep;
    private final double[] bucketMass = new double[BUCKETS];

    TopP(float p, int minKeep) {
        this.p = Params.notNaN("top-p", "p", p);
        this.minKeep = Params.atLeast("top-p", "minKeep", minKeep, 0);
    }

    @Override
    public void apply(Candidates c) {
        if (p >= 1f) {
            return;
        }
        c.softmax(false);
        float cum = 0f;
        int from = 0;
        if (!c.sorted && c.size > ADAPTIVE_ABOVE) {
            c.topPositions(FIRST_GUESS);
            for (int i = 0; i < FIRST_GUESS; i++) {
                cum += c.p[c.positions[i]];
                if (cum >= p && i + 1 >= minKeep) {
                    c.keepPositions(i + 1, true);
                    return;
                }
            }
            if (nucleus(c)) {
                return;
            }
            from = FIRST_GUESS; // the sorted list starts with the same 256, so the running sum carries on
        }
        if (!c.sorted) {
            c.sort();
        }
        for (int i = from; i < c.size; i++) {
            cum += c.p[i];
            if (cum >= p && i + 1 >= minKeep) {
                c.size = i + 1;
                return;
            }
        }
    }

    /**
     * Sorts only the candidates down to the histogram bucket where the mass reaches {@code p} (with a margin
     * for float rounding) and keeps the nucleus if it lies within them; false leaves the list unchanged.
     */
    private boolean nucleus(Candidates c) {
        float max = c.maxLogit();
        java.util.Arrays.fill(bucketMass, 0);
        for (int i = 0; i < c.size; i++) {
            bucketMass[bucket(max - c.logits[i])] += c.p[i];
        }
        double need = p * (1 + 1e-3) + 1e-6;
        double mass = 0;
        int last = BUCKETS - 1;
        for (int b = 0; b < BUCKETS; b++) {
            mass += bucketMass[b];
            if (mass >= need) {
                last = b;
                break;
            }
        }
        int m = 0;
        for (int i = 0; i < c.size; i++) {
            if (bucket(max - c.logits[i]) <= last) {
                c.positions[m++] = i;
            }
        }
        c.sortPositions(m);
        float cum = 0f;
        for (int i = 0; i < m; i++) {
            cum += c.p[c.positions[i]];
            if (cum >= p && i + 1 >= minKeep) {
                c.keepPositions(i + 1, true);
                return true;
            }
        }
        return false;
    }

    private static int bucket(float d) {
        return (int) Math.min(BUCKETS - 1, d * 64f);
    }

    @Override
    public String name() {
        return "top-p";
    }
}
