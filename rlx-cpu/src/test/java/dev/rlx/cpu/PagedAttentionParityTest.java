package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.llm.kv.KvCacheConfig;
import dev.rlx.llm.kv.KvSequence;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.kv.PagedAttention;
import dev.rlx.llm.kv.PagedKvCache;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The paged attention kernel of rlx-runtime against this backend's contiguous attention op
 * ({@code Op.Attention}, causal, BSHD) over the same K/V: one graph per sequence, fed the keys and values the
 * cache decodes, with the same queries.
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
            new PagedAttention(cache, heads, scale, 2).forward(0, seqs, qlens, seqs.length, q, out);

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
                double[] want = Runner.run(g, Map.of("q", qi, "k", k, "v", v)).get(0);
                for (int j = 0; j < want.length; j++) {
                    double got = out[token * heads * d + j];
                    assertTrue(Math.abs(got - want[j]) <= ATOL,
                            storage + " sequence " + i + " element " + j + ": paged " + got + " vs cpu " + want[j]);
                }
                token += qlens[i];
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
