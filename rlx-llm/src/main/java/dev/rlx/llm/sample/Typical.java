package dev.rlx.llm.sample;

/**
 * Locally typical sampling (Meister et al., TACL 2023): softmax, entropy {@code H}, then candidates ordered by
 * {@code |−ln p_i − H|} ascending (ties keep their order) and the shortest prefix whose cumulative probability
 * exceeds {@code p} (strictly) with at least {@code minKeep} kept; the result is not in logit order
 * ({@code p >= 1}: no-op). Candidates with {@code p = 0} rank last (llama.cpp gets NaN there). Allocates its
 * key scratch on the first call.
 */
final class Typical implements Sampler {
    private final float p;
    private final int minKeep;
    private long[] keys = new long[0];

    Typical(float p, int minKeep) {
        this.p = Params.notNaN("typical", "p", p);
        this.minKeep = Params.atLeast("typical", "minKeep", minKeep, 0);
    }

    @Override
    public void apply(Candidates c) {
        if (p >= 1f) {
            return;
        }
        c.softmax(true);
        float entropy = Entropy.of(c);
        int n = c.size;
        if (keys.length < n) {
            keys = new long[c.capacity()];
        }
        for (int i = 0; i < n; i++) {
            float pi = c.p[i];
            float score = pi > 0f ? Math.abs(-(float) Math.log(pi) - entropy) : Float.POSITIVE_INFINITY;
            keys[i] = (long) Float.floatToRawIntBits(score) << 32 | i; // score >= 0: its bits sort as ints
        }
        c.keySort.sort(keys, n);
        float cum = 0f;
        int last = n;
        for (int i = 0; i < n; i++) {
            int idx = (int) keys[i];
            c.positions[i] = idx;
            cum += c.p[idx];
            if (cum > p && (minKeep == 0 || i >= minKeep - 1)) {
                last = i + 1;
                break;
            }
        }
        c.keepPositions(last, false);
    }

    @Override
    public String name() {
        return "typical";
    }
}
