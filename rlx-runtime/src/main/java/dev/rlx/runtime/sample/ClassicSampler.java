package dev.rlx.runtime.sample;

/**
 * The fast path for "classic" options (top-k, top-p, temperature, then dist): the same samplers as the general
 * chain, but the first truncation reads the caller's logits directly instead of copying the vocabulary into a
 * candidate list, and nothing sorts the vocabulary. Gives exactly the tokens the general chain gives:
 * <ul>
 * <li>top-k: {@link Candidates#resetTop} picks the same k candidates, in the same order, as a reset and
 *     {@link TopK}; top-p, temperature and dist then run on those k.</li>
 * <li>top-p alone (more than 1024 tokens): the weights {@code exp(l − max)} and their sum are computed in
 *     the same order as {@link TopP}'s softmax; a histogram of the mass over {@code max − l} gives the
 *     bucket where the mass (with a margin) reaches {@code p}, and only tokens down to that bucket are kept
 *     and sorted. They are exactly the best-ranked tokens, so if their running sum reaches {@code p} the
 *     nucleus is the one {@link TopP} finds; otherwise the general path runs.</li>
 * </ul>
 */
final class ClassicSampler {
    /** Below this TopP sorts everything anyway, so the prefilter buys nothing. */
    private static final int PREFILTER_ABOVE = 1024;
    /** Mass buckets of the prefilter, 1/64 of a logit wide: 40 logits (a factor e^40) below the maximum. */
    private static final int BUCKETS = 2560;

    private final int topK;
    private final float topPValue;
    private final int minKeep;
    private final TopP topP;
    private final Temperature temperature;
    private final Dist dist;
    private Candidates work;    // the whole vocabulary: prefilter survivors, or the general path
    private final double[] bucketMass = new double[BUCKETS];

    ClassicSampler(int topK, float topP, int minKeep, float temperature, long seed) {
        this.topK = topK;
        this.topPValue = topP;
        this.minKeep = minKeep;
        this.topP = topP < 1f ? new TopP(topP, minKeep) : null;
        this.temperature = new Temperature(temperature, 0f, 1f);
        this.dist = new Dist(seed);
    }

    int sample(float[] logits) {
        int n = logits.length;
        Candidates c;
        if (topK > 0 && n > 0) {
            c = topKOf(logits, Math.min(topK, n));
            if (topP != null) {
                topP.apply(c);
            }
        } else if (topP != null && n > PREFILTER_ABOVE) {
            Candidates.requireNoNaN(logits);
            c = nucleus(logits);
        } else {
            c = general(logits);
        }
        temperature.apply(c);
        dist.apply(c);
        return c.selectedToken();
    }

    private Candidates topKOf(float[] logits, int k) {
        Candidates w = work(logits.length); // full capacity: later sorts index scratch by token id
        w.resetTop(logits, k);
        return w;
    }

    private Candidates nucleus(float[] logits) {
        int n = logits.length;
        Candidates w = work(n);
        float max = logits[0];
        for (int i = 1; i < n; i++) {
            max = Math.max(max, logits[i]);
        }
        // Exactly TopP's softmax: float weights and their float sum in index order.
        float sum = 0f;
        for (int i = 0; i < n; i++) {
            float e = (float) Math.exp(logits[i] - max);
            w.p[i] = e;
            sum += e;
        }
        // A mass histogram over max − logit finds a logit bound that the nucleus cannot pass.
        java.util.Arrays.fill(bucketMass, 0);
        for (int i = 0; i < n; i++) {
            bucketMass[bucket(max - logits[i])] += w.p[i];
        }
        double need = (double) topPValue * sum * (1 + 1e-3) + 1e-6 * sum; // margin for float rounding
        double cum = 0;
        int last = BUCKETS - 1;
        for (int b = 0; b < BUCKETS; b++) {
            cum += bucketMass[b];
            if (cum >= need) {
                last = b;
                break;
            }
        }
        int m = 0;
        for (int i = 0; i < n; i++) {
            float e = w.p[i];
            if (bucket(max - logits[i]) <= last) { // m <= i: reads stay ahead of writes
                w.ids[m] = i;
                w.logits[m] = logits[i];
                w.p[m] = e / sum;
                m++;
            }
        }
        w.size = m;
        w.sorted = false;
        w.selected = -1;
        w.sort();
        float run = 0f;
        for (int i = 0; i < m; i++) {
            run += w.p[i];
            if (run >= topPValue && i + 1 >= minKeep) {
                w.size = i + 1;
                return w;
            }
        }
        return general(logits);
    }

    /** Bucket of a logit {@code d} below the maximum: width 1/64, the last one open-ended. */
    private static int bucket(float d) {
        return (int) Math.min(BUCKETS - 1, d * 64f);
    }

    private Candidates general(float[] logits) {
        Candidates w = work(logits.length);
        w.reset(logits);
        if (topP != null) {
            topP.apply(w);
        }
        return w;
    }

    private Candidates work(int n) {
        if (work == null || work.capacity() < n) {
            work = new Candidates(Math.max(1, n));
        }
        return work;
    }

    void reset() {
        dist.reset();
    }
}
