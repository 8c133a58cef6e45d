package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link PagedAttention} on the CPU backend against the contiguous attention op ({@code Op.Attention}, causal,
 * BSHD) over the same K/V (one graph per sequence, fed the keys and values the cache decodes, with the same
 * queries); and against {@code Op.PagedAttention} in a graph of exactly the batch's size fed copies of the cache's
 * pool and spill bytes and slot tables (PagedAttention binds the pools by reference and pads the batch to its
 * compiled capacity: neither may change a value).
 */
class PagedAttentionParityTest {
    /** Both sides compute in f32 with double softmax, in different orders: a few ulps of values in [-1, 1]. */
    private static final double ATOL = 1e-5;

    @ParameterizedTest
    @EnumSource(value = KvStorage.class, names = {"F32", "F16", "Q8_0", "Q4_0"})
    void pagedAttention_matchesCpuAttentionOp(KvStorage storage) {
        int heads = 8;
        int kvHeads = 2;
        int d = 64;
        int[] lens = {1, 45, 130};
        int[] qlens = {1, 45, 7}; // a decode, a whole prompt, a chunk after 123 cached tokens
        Random r = new Random(42);
        try (PagedKvCache cache = new PagedKvCache(KvCacheConfig.of(1, kvHeads, d, 16, 32, storage))) {
            KvSequence[] seqs = new KvSequence[lens.length];
            int tokens = 0;
            for (int i = 0; i < lens.length; i++) {
                seqs[i] = cache.newSequence(i);
                cache.append(seqs[i], lens[i]);
                cache.write(seqs[i], 0, 0, lens[i], uniform(r, lens[i] * kvHeads * d), 0,
                        uniform(r, lens[i] * kvHeads * d), 0);
                tokens += qlens[i];
            }
            float[] q = uniform(r, tokens * heads * d);
            float[] out = new float[q.length];
            float scale = (float) (1 / Math.sqrt(d));
            try (PagedAttention attn = new PagedAttention(cache, heads, scale, 2)) {
                attn.forward(0, seqs, qlens, seqs.length, q, out);
            }

            int token = 0;
            for (int i = 0; i < lens.length; i++) {
                int len = lens[i];
                float[] k = new float[len * kvHeads * d];
                float[] v = new float[len * kvHeads * d];
                cache.read(seqs[i], 0, 0, len, k, 0, v, 0);
                float[] qi = java.util.Arrays.copyOfRange(q, token * heads * d, (token + qlens[i]) * heads * d);
                Graph g = new Graph("attention");
                Value qv = g.input("q", Shape.of(DType.F32, 1, qlens[i], heads, d));
                Value kv = g.input("k", Shape.of(DType.F32, 1, len, kvHeads, d));
                Value vv = g.input("v", Shape.of(DType.F32, 1, len, kvHeads, d));
                g.setOutputs(g.attention(qv, kv, vv, Op.Attention.of(heads, kvHeads, d).withScale(scale).causal()));
                float[] want;
                try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
                    want = c.run(Map.of("q", qi, "k", k, "v", v)).get(0);
                }
                for (int j = 0; j < want.length; j++) {
                    double got = out[token * heads * d + j];
                    assertTrue(Math.abs(got - want[j]) <= ATOL,
                            storage + " sequence " + i + " element " + j + ": paged " + got + " vs cpu " + want[j]);
                }
                token += qlens[i];
            }
        }
    }

    /** Both kernels run the same algorithm in f32 with double softmax; only reduction orders may differ. */
    private static final double OP_ATOL = 1e-6;

    @ParameterizedTest
    @EnumSource(KvStorage.class)
    void pagedAttentionOp_overTheCachesPools_matchesPagedAttention(KvStorage storage, @TempDir Path dir) {
        int heads = 8;
        int kvHeads = 2;
        int d = 64;
        int tpb = 16;
        int[] lens = {1, 45, 130, 70};
        int[] qlens = {1, 45, 7, 0}; // a decode, a whole prompt, a chunk after 123 cached tokens, an idle slot
        Random r = new Random(7);
        KvCacheConfig base = KvCacheConfig.of(2, kvHeads, d, tpb, 24, storage);
        KvCacheConfig cfg = base.withSpill(new KvCacheConfig.Spill(dir.resolve("kv.spill"),
                6 * base.blockBytesAllLayers(), KvCacheConfig.Spill.Mode.CREATE)); // 6 blocks in RAM, the rest spill
        try (PagedKvCache cache = new PagedKvCache(cfg)) {
            KvSequence[] seqs = new KvSequence[lens.length];
            int tokens = 0;
            for (int i = 0; i < lens.length; i++) {
                seqs[i] = cache.newSequence(i);
                cache.append(seqs[i], lens[i]);
                for (int layer = 0; layer < 2; layer++) {
                    cache.write(seqs[i], layer, 0, lens[i], uniform(r, lens[i] * kvHeads * d), 0,
                            uniform(r, lens[i] * kvHeads * d), 0);
                }
                tokens += qlens[i];
            }
            assertTrue(cache.memoryStats().spilledBlocks() > 0, "some blocks spilled");
            int maxBlocks = (130 + tpb - 1) / tpb;
            int[] table = new int[lens.length * maxBlocks];
            int[] offsets = new int[lens.length + 1];
            for (int i = 0; i < lens.length; i++) {
                cache.slotTable(seqs[i], table, i * maxBlocks);
                offsets[i + 1] = offsets[i] + qlens[i];
            }
            float[] q = uniform(r, tokens * heads * d);
            float scale = (float) (1 / Math.sqrt(d));
            Op.PagedAttention spec = new Op.PagedAttention(heads, kvHeads, d, tpb, storage.format(), scale);
            Graph g = new Graph("paged");
            g.setOutputs(g.pagedAttention(g.input("q", Shape.of(DType.F32, tokens, heads, d)),
                    g.input("pool", Shape.of(DType.U8, cfg.ramBlocks(), spec.blockBytes())),
                    g.input("spill", Shape.of(DType.U8, cfg.fileBlocks(), spec.blockBytes())),
                    g.input("table", Shape.of(DType.I32, lens.length, maxBlocks)),
                    g.input("kv_lens", Shape.of(DType.I32, lens.length)),
                    g.input("query_offsets", Shape.of(DType.I32, lens.length + 1)), spec));
            try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(2));
                 CompiledGraph c = s.compile(g); PagedAttention attn = new PagedAttention(cache, heads, scale, 2)) {
                for (int layer = 0; layer < 2; layer++) {
                    assertEquals(spec.blockBytes(), cfg.blockBytes(layer));
                    float[] want = new float[q.length];
                    // PagedAttention takes no idle sequences: the last (no queries) is left out of its batch
                    attn.forward(layer, seqs, qlens, seqs.length - 1, q, want);
                    c.setInput("q", q);
                    c.setInput("pool", cache.ramPool(layer));
                    c.setInput("spill", cache.spillPool(layer));
                    c.setInput("table", table);
                    c.setInput("kv_lens", lens);
                    c.setInput("query_offsets", offsets);
                    c.run();
                    float[] got = new float[q.length];
                    c.output(0).copyTo(got);
                    assertArrayEquals(want, got, (float) OP_ATOL, storage + " layer " + layer);
                }
            }
        }
    }

    private static float[] uniform(Random r, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = r.nextFloat() * 2 - 1;
        }
        return x;
    }
}
