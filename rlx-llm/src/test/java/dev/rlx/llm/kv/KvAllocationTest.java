package dev.rlx.llm.kv;

import dev.rlx.testkit.Allocations;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The per-token paths allocate nothing on the heap once warm: a decode step's append, quantised write and
 * read, and a batched attention call on the caller's thread, measured with the JVM's per-thread allocation
 * counter.
 */
@Tag("allocation") // runs in its own JVM: see the surefire configuration
class KvAllocationTest {
    private static final int MAX_ROUNDS = Allocations.ROUNDS;

    /** One clean round of {@code body} (which makes its own calls) on this thread. */
    private static void assertSteadyStateAllocatesNothing(String what, Runnable body) {
        Allocations.assertSteadyStateAllocatesNothing(what, body, 1, MAX_ROUNDS, null);
    }

    @Test
    void decodeStep_appendWriteRead_allocatesNothing() {
        int kvHeads = 2;
        int d = 64;
        int steps = 200;
        try (PagedKvCache c = new PagedKvCache(KvCacheConfig.of(1, kvHeads, d, 16, (MAX_ROUNDS * steps) / 16 + 1,
                KvStorage.Q4_0))) {
            KvSequence s = c.newSequence(1, MAX_ROUNDS * steps);
            float[] k = new float[kvHeads * d];
            float[] v = new float[kvHeads * d];
            Random r = new Random(1);
            for (int j = 0; j < k.length; j++) {
                k[j] = (float) r.nextGaussian();
                v[j] = (float) r.nextGaussian();
            }
            assertSteadyStateAllocatesNothing("append + write + read", () -> {
                for (int i = 0; i < steps; i++) {
                    int pos = c.append(s, 1);
                    k[0] = pos;
                    c.write(s, 0, pos, 1, k, 0, v, 0);
                    c.read(s, 0, pos, 1, k, 0, v, 0);
                }
            });
        }
    }

    @Test
    void attention_decodeBatch_allocatesNothing() {
        int heads = 8;
        int kvHeads = 2;
        int d = 64;
        int[] lens = {40, 100, 7};
        try (PagedKvCache c = new PagedKvCache(KvCacheConfig.of(1, kvHeads, d, 16, 16, KvStorage.Q8_0))) {
            KvSequence[] seqs = new KvSequence[lens.length];
            Random r = new Random(2);
            for (int i = 0; i < lens.length; i++) {
                seqs[i] = c.newSequence(i);
                c.append(seqs[i], lens[i]);
                float[] x = new float[lens[i] * kvHeads * d];
                for (int j = 0; j < x.length; j++) {
                    x[j] = (float) r.nextGaussian();
                }
                c.write(seqs[i], 0, 0, lens[i], x, 0, x, 0);
            }
            float[] q = new float[lens.length * heads * d];
            float[] out = new float[q.length];
            int[] qlens = {1, 1, 1};
            try (PagedAttention a = new PagedAttention(c, heads, 0.125f, 1)) {
                assertSteadyStateAllocatesNothing("PagedAttention.forward", () -> {
                    for (int i = 0; i < 200; i++) {
                        a.forward(0, seqs, qlens, seqs.length, q, out);
                    }
                });
            }
        }
    }
}
