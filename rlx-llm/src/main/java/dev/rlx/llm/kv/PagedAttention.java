package dev.rlx.llm.kv;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import dev.rlx.runtime.spi.HostRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Scaled dot-product attention for a batch of sequences of different lengths, reading keys and values from a
 * {@link PagedKvCache} through each sequence's block table: a compiled graph of one {@code Op.PagedAttention}
 * per layer, whose pool operands are the cache's own memory, bound by reference (nothing of the history is
 * copied per call). It computes what the contiguous attention op computes over the same K/V (scores
 * {@code scale * q.k}, query head {@code h} reads kv head {@code h / (numHeads / kvHeads)}, causal with the
 * queries at the end of the keys), within float rounding.
 *
 * <p>Each sequence {@code i} brings {@code queryLens[i]} query tokens: its last {@code queryLens[i]}
 * positions, whose K/V must already be {@link PagedKvCache#write written}. Query {@code j} of a sequence of
 * length {@code L} sees keys {@code [0, L - queryLens[i] + j]}: a decode step is {@code queryLens[i] = 1} and
 * sees the whole history; a prefill chunk is causal within itself. {@code q} and {@code out} are
 * {@code [sum(queryLens), numHeads, headDim]}, sequences one after another.
 *
 * <p>Shapes are static, so a layer's graph is compiled for a capacity of query tokens, sequences and blocks
 * per sequence (each the next power of two of what a call needs, so a few sizes serve a whole generation) and
 * kept; a call copies its queries, block tables and lengths in and the result out, and allocates nothing once
 * its capacity is compiled. The kernel is the backend's (the CPU's: tiles of query rows sharing one decoded
 * block, online softmax in double).
 *
 * <p>One {@code forward} at a time per instance; create one per thread otherwise. The cache must not change
 * during a call, and must stay open while this is: close this first.
 */
public final class PagedAttention implements AutoCloseable {
    private final PagedKvCache cache;
    private final Session session;
    private final boolean ownsSession;
    private final int numHeads;
    private final int headDim;
    private final float scale;
    private final WeightSet[] pools; // (layers) the layer's pool and spill pool, bound by reference
    private final List<List<Variant>> variants; // (layers) compiled capacities

    /** One compiled capacity of one layer, with its input buffers. */
    private record Variant(int tokens, int seqs, int blocks, CompiledGraph graph, float[] q, float[] out, int[] table,
                           int[] kvLens, int[] offsets) {}

    /**
     * Paged attention over {@code cache} with {@code numHeads} query heads, on a CPU session of its own.
     *
     * @param numHeads query heads, a multiple of the cache's kv heads
     * @param scale score scale, usually {@code 1/sqrt(headDim)}
     * @param threads CPU worker threads the kernel splits over
     * @throws dev.rlx.runtime.BackendUnavailableException when no CPU backend ({@code rlx-cpu}) is on the class path
     */
    public PagedAttention(PagedKvCache cache, int numHeads, float scale, int threads) {
        this(cache, numHeads, scale, threadsChecked(threads), true);
    }

    /**
     * Paged attention over {@code cache} compiled on {@code session}, whose backend must claim
     * {@code PAGED_ATTENTION} and read host memory (the cache's pools are host memory).
     */
    public PagedAttention(PagedKvCache cache, int numHeads, float scale, Session session) {
        this(cache, numHeads, scale, session, false);
    }

    private static Session threadsChecked(int threads) {
        if (threads < 1) {
            throw bad("threads must be >= 1 but is %d", threads);
        }
        return new Session(Device.CPU, CompileOptions.defaults().withThreads(threads));
    }

    private PagedAttention(PagedKvCache cache, int numHeads, float scale, Session session, boolean ownsSession) {
        try {
            KvCacheConfig c = cache.config();
            if (numHeads < 1 || numHeads % c.kvHeads() != 0) {
                throw bad("numHeads %d must be a positive multiple of the cache's %d kv heads", numHeads, c.kvHeads());
            }
            if (!(scale > 0) || Float.isInfinite(scale)) {
                throw bad("scale must be positive and finite but is %s", scale);
            }
            this.cache = cache;
            this.session = session;
            this.ownsSession = ownsSession;
            this.numHeads = numHeads;
            this.headDim = c.headDim();
            this.scale = scale;
            this.pools = new WeightSet[c.layers()];
            this.variants = new ArrayList<>();
            for (int l = 0; l < c.layers(); l++) {
                long blockBytes = c.blockBytes(l);
                WeightSet w = session.newWeightSet("kv layer " + l);
                w.bind("pool", Shape.of(DType.U8, c.ramBlocks(), Math.toIntExact(blockBytes)),
                        HostRuntime.wrap(cache.ramPool(l)));
                w.bind("spill", Shape.of(DType.U8, c.fileBlocks(), Math.toIntExact(blockBytes)),
                        HostRuntime.wrap(cache.spillPool(l)));
                pools[l] = w;
                variants.add(new ArrayList<>());
            }
        } catch (RuntimeException e) {
            if (ownsSession) {
                session.close();
            }
            throw e;
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
        int maxBlocks = 1;
        for (int i = 0; i < count; i++) {
            KvSequence s = seqs[i];
            cache.check(s);
            if (queryLens[i] < 1 || queryLens[i] > s.length) {
                throw new KvCacheException(KvCacheException.Reason.OUT_OF_RANGE, String.format(Locale.ROOT,
                        "[PagedAttention] sequence %d holds %d tokens; %d queries must be between 1 and that",
                        s.id, s.length, queryLens[i]));
            }
            tokens += queryLens[i];
            maxBlocks = Math.max(maxBlocks, s.blocks);
        }
        long values = tokens * numHeads * headDim;
        if (q.length < values || out.length < values) {
            throw bad("%d query tokens x %d heads x %d need %d floats but q has %d and out %d", tokens, numHeads,
                    headDim, values, q.length, out.length);
        }
        if (count == 0) {
            return;
        }
        Variant v = variant(layer, capacity((int) tokens), capacity(count), capacity(maxBlocks));
        int n = (int) values;
        System.arraycopy(q, 0, v.q, 0, n);
        int token = 0;
        for (int i = 0; i < v.seqs; i++) {
            v.offsets[i] = token;
            if (i < count) {
                cache.slotTable(seqs[i], v.table, i * v.blocks);
                v.kvLens[i] = seqs[i].length;
                token += queryLens[i];
            } else {
                v.kvLens[i] = 0; // an idle slot: no queries, no history
            }
        }
        v.offsets[v.seqs] = token;
        CompiledGraph g = v.graph;
        g.setInput("q", v.q);
        g.setInput("table", v.table);
        g.setInput("kv_lens", v.kvLens);
        g.setInput("query_offsets", v.offsets);
        g.run();
        g.output(0).copyTo(v.out);
        System.arraycopy(v.out, 0, out, 0, n);
    }

    /** The next power of two at or above {@code n} (n >= 1). */
    private static int capacity(int n) {
        return Integer.highestOneBit(Math.max(1, n - 1)) << (n > 1 ? 1 : 0);
    }

    private Variant variant(int layer, int tokens, int seqs, int blocks) {
        List<Variant> list = variants.get(layer);
        for (int i = 0; i < list.size(); i++) { // a few entries; no key object or iterator: allocates nothing
            Variant v = list.get(i);
            if (v.tokens == tokens && v.seqs == seqs && v.blocks == blocks) {
                return v;
            }
        }
        KvCacheConfig c = cache.config();
        Graph g = new Graph("paged_attention_layer" + layer);
        Value qv = g.input("q", Shape.of(DType.F32, tokens, numHeads, headDim));
        Value pool = g.param("pool", pools[layer].shape("pool"));
        Value spill = g.param("spill", pools[layer].shape("spill"));
        Value table = g.input("table", Shape.of(DType.I32, seqs, blocks));
        Value kvLens = g.input("kv_lens", Shape.of(DType.I32, seqs));
        Value offsets = g.input("query_offsets", Shape.of(DType.I32, seqs + 1));
        g.setOutputs(g.pagedAttention(qv, pool, spill, table, kvLens, offsets, new Op.PagedAttention(numHeads,
                c.kvHeads(), headDim, c.tokensPerBlock(), cache.format(layer), scale)));
        CompiledGraph compiled = session.compile(g, pools[layer]);
        int floats = tokens * numHeads * headDim;
        Variant v = new Variant(tokens, seqs, blocks, compiled, new float[floats], new float[floats],
                new int[seqs * blocks], new int[seqs], new int[seqs + 1]);
        list.add(v);
        return v;
    }

    private static KvCacheException bad(String format, Object... args) {
        return new KvCacheException(KvCacheException.Reason.BAD_ARGUMENT,
                "[PagedAttention] " + String.format(Locale.ROOT, format, args));
    }

    /** Closes the compiled graphs (and the session when it made its own). The cache stays open. */
    @Override
    public void close() {
        for (List<Variant> list : variants) {
            for (Variant v : list) {
                v.graph.close();
            }
            list.clear();
        }
        for (WeightSet w : pools) {
            if (w != null) {
                w.close();
            }
        }
        if (ownsSession) {
            session.close();
        }
    }
}
