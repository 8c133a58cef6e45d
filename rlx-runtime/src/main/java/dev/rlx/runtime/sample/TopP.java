package dev.rlx.runtime.sample;

/**
 * Nucleus sampling (Holtzman et al., 2020): softmax over the candidates, then keep the most probable ones up
 * to and including the first whose cumulative probability reaches {@code p} with at least {@code minKeep}
 * kept ({@code p >= 1}: no-op). Like llama.cpp, a large unsorted list is not sorted whole: the best 256 are
 * found with a heap first, and only if their mass falls short is the rest sorted.
 */
final class TopP implements Sampler {
    /** llama.cpp's thresholds for its adaptive partial sort. */
    private static final int ADAPTIVE_ABOVE = 1024;
    private static final int FIRST_GUESS = 256;

    private final float p;
    private final int minKeep;

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

    @Override
    public String name() {
        return "top-p";
    }
}
