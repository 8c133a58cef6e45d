package dev.rlx.llm.sample;

import java.util.Arrays;

/**
 * The candidate tokens a {@link Sampler} works on, as in llama.cpp's {@code llama_token_data_array}: parallel
 * arrays of token id, logit and probability, a current size (samplers truncate it), whether the candidates
 * are sorted by logit (descending), and the index of the selected candidate (−1 until a selecting sampler
 * such as {@code dist} runs).
 *
 * <p>Reuse one instance per decode loop: {@link #reset(float[])} refills it without allocating. The first
 * full sort allocates sort scratch sized to the capacity; after that nothing is allocated. Ties in logit are
 * ordered by lower token id. Not thread-safe.
 */
public final class Candidates {
    int[] ids;
    float[] logits;
    float[] p;
    int size;
    boolean sorted;
    int selected = -1;

    // Sort scratch, allocated on first use and kept (capacity each).
    private long[] keys;
    private int[] posOfId;
    private int[] spareIds;
    private float[] spareLogits;
    private float[] spareP;
    int[] positions; // top-k heap / order scratch shared by the samplers of one chain step
    private int[] identity; // 0, 1, 2, ... copied into ids by reset (at least capacity long)
    final KeySort keySort = new KeySort();

    /** Candidates for a vocabulary of up to {@code capacity} tokens, initially empty. */
    public Candidates(int capacity) {
        if (capacity < 1) {
            throw new SamplingException("capacity", -1, "capacity must be >= 1 but is " + capacity);
        }
        ids = new int[capacity];
        logits = new float[capacity];
        p = new float[capacity];
        positions = new int[capacity];
    }

    /** Token ids {@code 0..n-1} with the given logits, unsorted, probabilities 0. */
    public static Candidates fromLogits(float[] logits) {
        Candidates c = new Candidates(Math.max(1, logits.length));
        c.reset(logits);
        return c;
    }

    /**
     * Refills with token ids {@code 0..n-1} and {@code logits} ({@code n = logits.length}), unsorted, nothing
     * selected. Allocates nothing.
     *
     * @throws SamplingException if {@code n} exceeds the capacity or a logit is NaN
     */
    public void reset(float[] logits) {
        int n = logits.length;
        if (n > ids.length) {
            throw new SamplingException("logits", -1, "logits has " + n + " entries but the capacity is " + ids.length);
        }
        requireNoNaN(logits);
        System.arraycopy(logits, 0, this.logits, 0, n);
        if (identity == null) {
            identity = new int[ids.length];
            for (int i = 0; i < identity.length; i++) {
                identity[i] = i;
            }
        }
        System.arraycopy(identity, 0, ids, 0, n);
        Arrays.fill(p, 0, n, 0f);
        size = n;
        sorted = false;
        selected = -1;
    }

    /**
     * Refills with the best {@code k} of {@code logits} (token ids are indices), sorted: exactly what
     * {@code reset(logits)} followed by {@code topK(k)} leaves, without copying the vocabulary. A size-k heap
     * reads the logits once, O(n log k); the NaN check rides along.
     *
     * @throws SamplingException if {@code logits} exceeds the capacity, {@code k < 1} or a logit is NaN
     */
    public void resetTop(float[] logits, int k) {
        int n = logits.length;
        if (n > ids.length) {
            throw new SamplingException("logits", -1, "logits has " + n + " entries but the capacity is " + ids.length);
        }
        if (k < 1) {
            throw new SamplingException("k", -1, "k must be >= 1 but is " + k);
        }
        k = Math.min(k, n);
        if (identity == null) {
            identity = new int[ids.length];
            for (int i = 0; i < identity.length; i++) {
                identity[i] = i;
            }
        }
        if (topPositions(logits, identity, n, k, positions)) {
            requireNoNaN(logits);
        }
        for (int j = 0; j < k; j++) {
            int pos = positions[j];
            ids[j] = pos;
            this.logits[j] = logits[pos];
            p[j] = 0f;
        }
        size = k;
        sorted = true;
        selected = -1;
    }

    static void requireNoNaN(float[] logits) {
        for (int i = 0; i < logits.length; i++) {
            if (logits[i] != logits[i]) {
                throw new SamplingException("logits", i, "logits[" + i + "] is NaN");
            }
        }
    }

    public int capacity() {
        return ids.length;
    }

    public int size() {
        return size;
    }

    public int id(int i) {
        return ids[check(i)];
    }

    public float logit(int i) {
        return logits[check(i)];
    }

    /** The probability of candidate {@code i} as last computed by a sampler (0 before any). */
    public float p(int i) {
        return p[check(i)];
    }

    /** Whether the candidates are in descending logit order. */
    public boolean isSorted() {
        return sorted;
    }

    /** Index of the selected candidate, or −1. */
    public int selected() {
        return selected;
    }

    /** The token id of the selected candidate. */
    public int selectedToken() {
        if (selected < 0) {
            throw new SamplingException("samplers", -1, "no candidate is selected (the chain needs a selecting sampler: dist, "
                    + "greedy or mirostat)");
        }
        return ids[selected];
    }

    /** Sets candidate {@code i}'s logit (for custom samplers); the candidates count as unsorted afterwards. */
    public void setLogit(int i, float logit) {
        logits[check(i)] = logit;
        sorted = false;
    }

    /** Selects candidate {@code i} (for custom terminal samplers). */
    public void select(int i) {
        selected = check(i);
    }

    /** Keeps the first {@code n} candidates. */
    public void truncate(int n) {
        if (n < 0 || n > size) {
            throw new SamplingException("n", -1, "cannot truncate " + size + " candidates to " + n);
        }
        size = n;
    }

    /**
     * llama.cpp's softmax: sorts (descending by logit, ties by lower id) if not sorted, then sets
     * {@code p_i = exp(l_i − max) / Σ exp(l_j − max)} in float.
     */
    public void softmax() {
        softmax(true);
    }

    private int check(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("candidate " + i + " of " + size);
        }
        return i;
    }

    // ---------------------------------------------------------------- package-private primitives

    /** {@code llama_sampler_softmax_impl(cur, sort)}. */
    void softmax(boolean sort) {
        if (sort && !sorted) {
            sort();
        }
        float max = sorted ? logits[0] : maxLogit();
        float sum = 0f;
        for (int i = 0; i < size; i++) {
            float e = (float) Math.exp(logits[i] - max);
            p[i] = e;
            sum += e;
        }
        for (int i = 0; i < size; i++) {
            p[i] /= sum;
        }
    }

    float maxLogit() {
        float max = logits[0];
        for (int i = 1; i < size; i++) {
            max = Math.max(max, logits[i]);
        }
        return max;
    }

    /** Sorts all candidates, descending by logit, ties by lower id. O(n log n) on packed long keys. */
    void sort() {
        ensureSortScratch();
        for (int i = 0; i < size; i++) {
            keys[i] = key(logits[i], ids[i]);
            posOfId[ids[i]] = i;
        }
        keySort.sort(keys, size);
        for (int j = 0; j < size; j++) {
            int id = Integer.MAX_VALUE - (int) keys[size - 1 - j];
            int pos = posOfId[id];
            spareIds[j] = id;
            spareLogits[j] = logits[pos];
            spareP[j] = p[pos];
        }
        swapSpare();
        sorted = true;
    }

    /**
     * The positions of the best {@code k} candidates, best first, written to {@link #positions}; the
     * candidates themselves are not changed. A size-k heap with the worst at its root: O(n log k).
     */
    void topPositions(int k) {
        topPositions(logits, ids, size, k, positions);
    }

    /**
     * The positions of the best {@code k} of {@code l[0..size)} (ids {@code id}), best first, into
     * {@code heap}. Returns whether a NaN was seen (NaN never ranks).
     */
    static boolean topPositions(float[] l, int[] id, int size, int k, int[] heap) {
        int n = Math.min(k, size);
        boolean nan = false;
        for (int i = 0; i < n; i++) {
            nan |= l[i] != l[i];
            heap[i] = i;
            siftUp(l, id, heap, i);
        }
        if (n > 0) {
            float worst = l[heap[0]];
            int worstId = id[heap[0]];
            for (int i = n; i < size; i++) {
                float v = l[i];
                if (v < worst) {
                    continue; // the common case: one compare against the k-th best so far
                }
                if (v != v) {
                    nan = true;
                    continue;
                }
                if (v == worst && id[i] > worstId) {
                    continue;
                }
                heap[0] = i;
                siftDown(l, id, heap, 0, n);
                worst = l[heap[0]];
                worstId = id[heap[0]];
            }
        }
        for (int end = n - 1; end > 0; end--) { // heapsort: the worst goes last, leaving best first
            int t = heap[0];
            heap[0] = heap[end];
            heap[end] = t;
            siftDown(l, id, heap, 0, end);
        }
        return nan;
    }

    /** Sorts {@code positions[0..m)} best first (higher logit, then lower id). O(m). */
    void sortPositions(int m) {
        ensureSortScratch();
        for (int j = 0; j < m; j++) {
            int pos = positions[j];
            keys[j] = key(logits[pos], ids[pos]);
            posOfId[ids[pos]] = pos;
        }
        keySort.sort(keys, m);
        for (int j = 0; j < m; j++) {
            positions[j] = posOfId[Integer.MAX_VALUE - (int) keys[m - 1 - j]];
        }
    }

    /** Keeps only the candidates at {@code positions[0..n)}, in that order, sorted or not as stated. */
    void keepPositions(int n, boolean inLogitOrder) {
        ensureSortScratch();
        for (int j = 0; j < n; j++) {
            int pos = positions[j];
            spareIds[j] = ids[pos];
            spareLogits[j] = logits[pos];
            spareP[j] = p[pos];
        }
        swapSpare();
        size = n;
        sorted = inLogitOrder;
    }

    /** Keeps the best {@code k} candidates, sorted: llama.cpp's partial sort for top-k. */
    void keepTop(int k) {
        if (k >= size) {
            if (!sorted) {
                sort();
            }
            return;
        }
        if (k > 4096) { // a heap stops paying off once k is a sizeable part of n
            sort();
            size = k;
            return;
        }
        topPositions(k);
        keepPositions(k, true);
    }

    /** Drops the first {@code n} candidates (XTC). */
    void dropFirst(int n) {
        System.arraycopy(ids, n, ids, 0, size - n);
        System.arraycopy(logits, n, logits, 0, size - n);
        System.arraycopy(p, n, p, 0, size - n);
        size -= n;
    }

    /** Whether {@code i} ranks before {@code j} in {@code l}/{@code id}: higher logit, then lower id. */
    private static boolean better(float[] l, int[] id, int i, int j) {
        return l[i] > l[j] || l[i] == l[j] && id[i] < id[j];
    }

    // heap ordered so that the root is the worst candidate
    private static void siftUp(float[] l, int[] id, int[] h, int i) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!better(l, id, h[parent], h[i])) {
                break;
            }
            int t = h[parent];
            h[parent] = h[i];
            h[i] = t;
            i = parent;
        }
    }

    private static void siftDown(float[] l, int[] id, int[] h, int i, int n) {
        while (true) {
            int c = 2 * i + 1;
            if (c >= n) {
                return;
            }
            int worst = c;
            if (c + 1 < n && better(l, id, h[c], h[c + 1])) {
                worst = c + 1;
            }
            if (!better(l, id, h[i], h[worst])) {
                return;
            }
            int t = h[i];
            h[i] = h[worst];
            h[worst] = t;
            i = worst;
        }
    }

    /** Ascending in (logit, −id): the sortable float bits (−0 as +0) above {@code MAX_VALUE − id}. */
    private static long key(float logit, int id) {
        int bits = Float.floatToRawIntBits(logit == 0f ? 0f : logit);
        int sortable = bits < 0 ? bits ^ 0x7FFFFFFF : bits;
        return (long) sortable << 32 | (Integer.MAX_VALUE - id);
    }

    private void ensureSortScratch() {
        if (keys == null) {
            int n = ids.length;
            keys = new long[n];
            posOfId = new int[n];
            spareIds = new int[n];
            spareLogits = new float[n];
            spareP = new float[n];
        }
    }

    private void swapSpare() {
        int[] i = ids;
        ids = spareIds;
        spareIds = i;
        float[] l = logits;
        logits = spareLogits;
        spareLogits = l;
        float[] q = p;
        p = spareP;
        spareP = q;
    }
}
