package dev.rlx.runtime.sample;

/**
 * The fast path for "classic" options (top-k, top-p, temperature, then dist): the same samplers as the general
 * chain, but the first truncation reads the caller's logits directly instead of copying the vocabulary into a
 * candidate list, and nothing sorts the vocabulary. Gives exactly the tokens the general chain gives:
 * <ul>
 * <li>top-k: a size-k heap over the logits picks the same k candidates, in the same order, as
 *     {@link TopK}; top-p, temperature and dist then run on those k.</li>
 * <li>top-p alone (more than 1024 tokens): the weights {@code exp(l − max)} and their sum are computed in
 *     the same order as {@link TopP}'s softmax; only tokens with weight at least half of
 *     {@code (1−p)/(n−1)} of the sum are kept and sorted. They are exactly the best-ranked tokens, so if their
 *     running sum reaches {@code p} the nucleus is the one {@link TopP} finds; otherwise the general path
 *     runs. (A token in the nucleus has {@code p_i > (1−p)/(n−1)}: the mass from it on exceeds {@code 1−p}
 *     and is at most {@code (n−1)·p_i}.)</li>
 * </ul>
 */
final class ClassicSampler {
    /** Below this TopP sorts everything anyway, so the prefilter buys nothing. */
    private static final int PREFILTER_ABOVE = 1024;

    private final int topK;
    private final float topPValue;
    private final int minKeep;
    private final TopP topP;
    private final Temperature temperature;
    private final Dist dist;
    private Candidates small;   // the top-k candidates
    private Candidates view;    // a heap over the caller's logits (its id and logit arrays are repointed)
    private int[] identity = new int[0];
    private Candidates work;    // the whole vocabulary: prefilter survivors, or the general path

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
        for (int i = 0; i < n; i++) {
            if (logits[i] != logits[i]) {
                throw new IllegalArgumentException("logits[" + i + "] is NaN");
            }
        }
        Candidates c;
        if (topK > 0 && n > 0) {
            c = topKOf(logits, Math.min(topK, n));
            if (topP != null) {
                topP.apply(c);
            }
        } else if (topP != null && n > PREFILTER_ABOVE) {
            c = nucleus(logits);
        } else {
            c = general(logits);
        }
        temperature.apply(c);
        dist.apply(c);
        return c.selectedToken();
    }

    private Candidates topKOf(float[] logits, int k) {
        int n = logits.length;
        if (small == null || small.capacity() < k) {
            small = new Candidates(k);
            view = new Candidates(k);
        }
        if (identity.length < n) {
            identity = new int[n];
            for (int i = 0; i < n; i++) {
                identity[i] = i;
            }
        }
        view.ids = identity;
        view.logits = logits;
        view.size = n;
        view.sorted = false;
        view.topPositions(k);
        for (int j = 0; j < k; j++) {
            int pos = view.positions[j];
            small.ids[j] = pos;
            small.logits[j] = logits[pos];
            small.p[j] = 0f;
        }
        view.logits = null; // do not keep the caller's array
        small.size = k;
        small.sorted = true;
        small.selected = -1;
        return small;
    }

    private Candidates nucleus(float[] logits) {
        int n = logits.length;
        Candidates w = work(n);
        float max = logits[0];
        for (int i = 1; i < n; i++) {
            max = Math.max(max, logits[i]);
        }
        float sum = 0f;
        for (int i = 0; i < n; i++) {
            float e = (float) Math.exp(logits[i] - max);
            w.p[i] = e;
            sum += e;
        }
        float cutoff = (float) (0.5 * (1 - topPValue) / (n - 1)) * sum;
        int m = 0;
        for (int i = 0; i < n; i++) {
            float e = w.p[i];
            if (e >= cutoff) { // m <= i: reads stay ahead of writes
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
        float cum = 0f;
        for (int i = 0; i < m; i++) {
            cum += w.p[i];
            if (cum >= topPValue && i + 1 >= minKeep) {
                w.size = i + 1;
                return w;
            }
        }
        return general(logits);
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
