package dev.rlx.llm.kv;

import dev.rlx.ir.quant.BlockFormat;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scaled dot-product attention on the CPU for a batch of sequences of different lengths, reading keys and
 * values from a {@link PagedKvCache} through each sequence's block table. It computes what the contiguous
 * attention op computes over the same K/V (the {@code Op.Attention} semantics: scores {@code scale * q.k},
 * query head {@code h} reads kv head {@code h / (numHeads / kvHeads)}, causal with the queries at the end of
 * the keys), within float rounding.
 *
 * <p>Each sequence {@code i} brings {@code queryLens[i]} query tokens: its last {@code queryLens[i]}
 * positions, whose K/V must already be {@link PagedKvCache#write written}. Query {@code j} of a sequence of
 * length {@code L} sees keys {@code [0, L - queryLens[i] + j]}: a decode step is {@code queryLens[i] = 1} and
 * sees the whole history; a prefill chunk is causal within itself. {@code q} and {@code out} are
 * {@code [sum(queryLens), numHeads, headDim]}, sequences one after another.
 *
 * <p>How: the work is split into units of (sequence, kv head, tile of up to {@value #TILE_ROWS} query rows);
 * a unit walks the blocks its queries can see, decodes that kv head's key rows and value rows of one block
 * into per-thread scratch ({@code tokensPerBlock x headDim} floats each; quantised blocks are dequantised
 * here and nowhere else, never the whole history), and folds the block into each query row with an online
 * softmax (running maximum and sum, the accumulator rescaled when the maximum grows). Scores, maximum and sum
 * are held in double; dot products and the value accumulator in f32. So every K/V row is decoded once per
 * tile, not once per query head, which is what grouped-query attention saves. Work is O(sum over queries of
 * visible keys x headDim); scratch is O(threads x (tokensPerBlock + tile rows) x headDim), allocated up front.
 *
 * <p>One {@code forward} at a time per instance (it keeps per-call state); create one per thread otherwise.
 * The cache must not change during a call.
 *
 * <p>The same computation as a graph op is {@code Op.PagedAttention}, fed {@link PagedKvCache#ramPool},
 * {@link PagedKvCache#spillPool} and {@link PagedKvCache#slotTable}; this class keeps its own kernel until pools
 * can be bound to a compiled graph by reference.
 */
public final class PagedAttention {
    /** Query rows (positions x heads of one group) that share one decoded block. */
    static final int TILE_ROWS = 32;

    private final PagedKvCache cache;
    private final int numHeads;
    private final int kvHeads;
    private final int group; // query heads per kv head
    private final int headDim;
    private final int tpb;
    private final int tilePositions;
    private final double scale;
    private final Worker[] workers;
    private final AtomicInteger nextUnit = new AtomicInteger();

    // The call in progress; read by the workers.
    private int layer;
    private KvSequence[] seqs;
    private int[] queryLens;
    private float[] q;
    private float[] out;
    private int[] tokenStart = new int[16]; // (count) first query token of each sequence within q
    private int[] unitSeq = new int[64]; // (units) sequence index of each work unit
    private int[] unitHead = new int[64]; // (units) kv head
    private int[] unitPos = new int[64]; // (units) first query position (within the sequence's chunk)
    private int units;

    /**
     * A kernel for {@code cache} with {@code numHeads} query heads.
     *
     * @param numHeads query heads, a multiple of the cache's kv heads
     * @param scale score scale, usually {@code 1/sqrt(headDim)}
     * @param threads work is split over this many tasks on the common fork-join pool; 1 runs on the caller
     */
    public PagedAttention(PagedKvCache cache, int numHeads, float scale, int threads) {
        this.cache = cache;
        KvCacheConfig c = cache.config();
        this.kvHeads = c.kvHeads();
        if (numHeads < 1 || numHeads % kvHeads != 0) {
            throw bad("numHeads %d must be a positive multiple of the cache's %d kv heads", numHeads, kvHeads);
        }
        if (!(scale > 0) || Float.isInfinite(scale)) {
            throw bad("scale must be positive and finite but is %s", scale);
        }
        if (threads < 1) {
            throw bad("threads must be >= 1 but is %d", threads);
        }
        this.numHeads = numHeads;
        this.group = numHeads / kvHeads;
        this.headDim = c.headDim();
        this.tpb = c.tokensPerBlock();
        this.tilePositions = Math.max(1, TILE_ROWS / group);
        this.scale = scale;
        this.workers = new Worker[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker();
        }
    }

    /**
     * Attends the queries of sequences {@code seqs[0 .. count)} over their cached keys and values in
     * {@code layer}, writing {@code out}.
     *
     * @throws KvCacheException for a freed sequence, a query length outside {@code [1, length]}, a layer out of
     *     range or arrays shorter than {@code sum(queryLens) * numHeads * headDim}
     */
    public void forward(int layer, KvSequence[] seqs, int[] queryLens, int count, float[] q, float[] out) {
        cache.checkLayer(layer);
        if (count < 0 || count > seqs.length || count > queryLens.length) {
            throw bad("count %d exceeds the %d sequences or %d query lengths given", count, seqs.length,
                    queryLens.length);
        }
        long tokens = 0;
        for (int i = 0; i < count; i++) {
            KvSequence s = seqs[i];
            cache.check(s);
            if (queryLens[i] < 1 || queryLens[i] > s.length) {
                throw new KvCacheException(KvCacheException.Reason.OUT_OF_RANGE, String.format(Locale.ROOT,
                        "[PagedAttention] sequence %d holds %d tokens; %d queries must be between 1 and that",
                        s.id, s.length, queryLens[i]));
            }
            tokens += queryLens[i];
        }
        long values = tokens * numHeads * headDim;
        if (q.length < values || out.length < values) {
            throw bad("%d query tokens x %d heads x %d need %d floats but q has %d and out %d", tokens, numHeads,
                    headDim, values, q.length, out.length);
        }
        plan(seqs, queryLens, count);
        this.layer = layer;
        this.seqs = seqs;
        this.queryLens = queryLens;
        this.q = q;
        this.out = out;
        try {
            nextUnit.set(0);
            if (workers.length == 1 || units == 1) {
                workers[0].drain();
            } else {
                for (Worker w : workers) {
                    w.reinitialize();
                }
                ForkJoinTask.invokeAll(workers);
            }
        } finally {
            this.seqs = null;
            this.queryLens = null;
            this.q = null;
            this.out = null;
        }
    }

    /** Fills the per-sequence query offsets and the list of work units. */
    private void plan(KvSequence[] seqs, int[] queryLens, int count) {
        if (tokenStart.length < count) {
            tokenStart = new int[Math.max(count, 2 * tokenStart.length)];
        }
        units = 0;
        int token = 0;
        for (int i = 0; i < count; i++) {
            tokenStart[i] = token;
            token += queryLens[i];
            for (int p = 0; p < queryLens[i]; p += tilePositions) {
                for (int kh = 0; kh < kvHeads; kh++) {
                    if (units == unitSeq.length) {
                        unitSeq = Arrays.copyOf(unitSeq, 2 * units);
                        unitHead = Arrays.copyOf(unitHead, 2 * units);
                        unitPos = Arrays.copyOf(unitPos, 2 * units);
                    }
                    unitSeq[units] = i;
                    unitHead[units] = kh;
                    unitPos[units] = p;
                    units++;
                }
            }
        }
    }

    private static KvCacheException bad(String format, Object... args) {
        return new KvCacheException(KvCacheException.Reason.BAD_ARGUMENT,
                "[PagedAttention] " + String.format(Locale.ROOT, format, args));
    }

    /** One thread's share: takes units until none are left, with its own scratch. */
    private final class Worker extends RecursiveAction {
        private final float[] keys = new float[tpb * headDim]; // (tpb, headDim) one block's decoded key rows
        private final float[] vals = new float[tpb * headDim]; // (tpb, headDim) and value rows
        private final double[] scores = new double[tpb]; // (tpb) one query row against one block
        private final int maxRows = tilePositions * group;
        private final double[] max = new double[maxRows]; // (rows) running maximum score
        private final double[] sum = new double[maxRows]; // (rows) running sum of exp(score - max)
        private final float[] acc = new float[maxRows * headDim]; // (rows, headDim) running sum of p * v

        @Override
        protected void compute() {
            drain();
        }

        void drain() {
            for (int u = nextUnit.getAndIncrement(); u < units; u = nextUnit.getAndIncrement()) {
                unit(unitSeq[u], unitHead[u], unitPos[u]);
            }
        }

        /** Query positions {@code [p0, p1)} of sequence {@code si}, all heads of kv head {@code kh}. */
        private void unit(int si, int kh, int p0) {
            KvSequence s = seqs[si];
            int qlen = queryLens[si];
            int p1 = Math.min(qlen, p0 + tilePositions);
            int base = s.length - qlen; // absolute position of query 0
            int rows = (p1 - p0) * group;
            Arrays.fill(max, 0, rows, Double.NEGATIVE_INFINITY);
            Arrays.fill(sum, 0, rows, 0);
            Arrays.fill(acc, 0, rows * headDim, 0f);
            BlockFormat format = cache.format(layer);
            long headAt = kh * tpb * cache.headRowBytes(layer);
            long keysBytes = cache.keysBytes(layer);
            int lastKey = base + p1 - 1;
            for (int bi = 0, t0 = 0; t0 <= lastKey; bi++, t0 += tpb) {
                int tn = Math.min(tpb, lastKey + 1 - t0);
                int b = s.table[bi];
                MemorySegment seg = cache.segment(layer, b);
                long at = cache.offset(layer, b) + headAt;
                format.decode(seg, at, keys, 0, tn * headDim); // this head's rows are contiguous in the block
                format.decode(seg, at + keysBytes, vals, 0, tn * headDim);
                for (int p = p0; p < p1; p++) {
                    int visible = Math.min(tn, base + p - t0 + 1);
                    if (visible <= 0) {
                        continue; // causal: this block starts after the query
                    }
                    int qRow = (tokenStart[si] + p) * numHeads + kh * group;
                    for (int g = 0; g < group; g++) {
                        fold((p - p0) * group + g, (qRow + g) * headDim, visible);
                    }
                }
            }
            for (int p = p0; p < p1; p++) {
                int qRow = (tokenStart[si] + p) * numHeads + kh * group;
                for (int g = 0; g < group; g++) {
                    int r = (p - p0) * group + g;
                    float inv = (float) (1 / sum[r]); // >= 1: the maximum key contributes exp(0)
                    int o = (qRow + g) * headDim;
                    for (int d = 0; d < headDim; d++) {
                        out[o + d] = acc[r * headDim + d] * inv;
                    }
                }
            }
        }

        /** Folds the first {@code visible} decoded keys/values into row {@code r}'s online softmax. */
        private void fold(int r, int qo, int visible) {
            double blockMax = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < visible; j++) {
                double sc = scale * FloatRows.dot(q, qo, keys, j * headDim, headDim);
                scores[j] = sc;
                blockMax = Math.max(blockMax, sc);
            }
            int ao = r * headDim;
            if (blockMax > max[r]) {
                double correction = Math.exp(max[r] - blockMax); // 0 on the first block
                sum[r] *= correction;
                FloatRows.scale(acc, ao, (float) correction, headDim);
                max[r] = blockMax;
            }
            double m = max[r];
            for (int j = 0; j < visible; j++) {
                double p = Math.exp(scores[j] - m);
                sum[r] += p;
                FloatRows.axpy((float) p, vals, j * headDim, acc, ao, headDim);
            }
        }
    }
}
