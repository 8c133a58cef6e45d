package dev.rlx.llm.sample;

/**
 * Min-p (Nguyen et al., 2024): keeps tokens with {@code p_i >= p·p_max}, i.e. {@code l_i >= l_max + ln p}
 * ({@code p <= 0}: no-op). Unsorted input is filtered in place, keeping order; if fewer than
 * {@code max(minKeep, 1)} survive, the candidates are sorted and the best {@code max(minKeep, 1)} kept (the
 * first always survives, so {@code p > 1} keeps exactly one).
 */
final class MinP implements Sampler {
    private final float p;
    private final int minKeep;

    MinP(float p, int minKeep) {
        this.p = Params.notNaN("min-p", "p", p);
        this.minKeep = Params.atLeast("min-p", "minKeep", minKeep, 0);
    }

    @Override
    public void apply(Candidates c) {
        if (p <= 0f || c.size == 0) {
            return;
        }
        float logP = (float) Math.log(p);
        if (!c.sorted) {
            float max = -Float.MAX_VALUE;
            for (int i = 0; i < c.size; i++) {
                max = Math.max(max, c.logits[i]);
            }
            float min = max + logP;
            int kept = 0;
            for (int i = 0; i < c.size; i++) {
                if (c.logits[i] >= min) {
                    kept++;
                }
            }
            if (kept > 0 && kept >= minKeep) {
                int j = 0;
                for (int i = 0; i < c.size; i++) {
                    if (c.logits[i] >= min) {
                        c.ids[j] = c.ids[i];
                        c.logits[j] = c.logits[i];
                        c.p[j] = c.p[i];
                        j++;
                    }
                }
                c.size = kept;
                return;
            }
            c.sort();
        }
        float min = c.logits[0] + logP;
        int i = 1;
        for (; i < c.size; i++) {
            if (c.logits[i] < min && i >= minKeep) {
                break;
            }
        }
        c.size = i;
    }

    @Override
    public String name() {
        return "min-p";
    }
}
