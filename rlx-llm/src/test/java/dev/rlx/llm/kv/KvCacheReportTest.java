package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The figures the KV cache is judged by, printed to the test output
 * ({@code rlx-llm/target/surefire-reports/dev.rlx.llm.kv.KvCacheReportTest-output.txt}) and checked
 * against loose bounds: memory waste of paged allocation on a realistic request mix, bytes per token of each
 * storage type against F16, and attention error of each storage type against exact f32 K/V.
 */
class KvCacheReportTest {
    /**
     * 200 requests, prompts uniform in [50, 2000] tokens, outputs uniform in [10, 500] (the model stops with
     * EOS; maxNewTokens 512), 16-token blocks, 4096 blocks (65,536 token slots), at most 2048 tokens and 64
     * sequences per step. Waste is allocated minus filled token slots, sampled after every step's allocation.
     */
    @Test
    void waste_realisticMix_underTwoPercent() {
        Random r = new Random(2024);
        int tpb = 16;
        try (PagedKvCache c = new PagedKvCache(KvCacheConfig.of(1, 1, 32, tpb, 4096, KvStorage.F16))) {
            FakeModel m = new FakeModel(c, false);
            Scheduler s = new Scheduler(c, new SchedulerConfig(2048, 64, 16));
            List<Request> all = new ArrayList<>();
            for (int id = 0; id < 200; id++) {
                Request q = m.request(id, 50 + r.nextInt(1951), 10 + r.nextInt(491), 512);
                all.add(q);
                s.submit(q);
            }
            long allocatedSum = 0;
            long wastedSum = 0;
            long runningSum = 0;
            long reservedSum = 0; // what a contiguous prompt + maxNewTokens reservation per request would hold
            long peakAllocated = 0;
            long wasteAtPeak = 0;
            long steps = 0;
            int finished = 0;
            Set<Long> running = new HashSet<>(); // requests holding blocks, tracked from the batches
            while (!s.idle()) {
                ScheduledBatch b = s.schedule();
                running.removeAll(b.preempted());
                for (ScheduledBatch.Entry e : b.entries()) {
                    running.add(e.requestId());
                }
                KvMemoryStats st = c.memoryStats();
                assertEquals(running.size(), c.sequenceCount());
                allocatedSum += st.allocatedTokenSlots();
                wastedSum += st.wastedTokenSlots();
                runningSum += running.size();
                for (long id : running) {
                    reservedSum += all.get((int) id).prompt().length + all.get((int) id).maxNewTokens();
                }
                if (st.allocatedTokenSlots() > peakAllocated) {
                    peakAllocated = st.allocatedTokenSlots();
                    wasteAtPeak = st.wastedTokenSlots();
                }
                for (Finished f : s.complete(b, m.run(b))) {
                    running.remove(f.requestId());
                    finished++;
                }
                steps++;
            }
            double waste = (double) wastedSum / allocatedSum;
            double contiguousWaste = 1 - (double) (allocatedSum - wastedSum) / reservedSum;
            System.out.printf(Locale.ROOT, "KV waste, 200 requests (prompt 50-2000, output 10-500), 16-token blocks,"
                            + " 4096 blocks:%n  %d steps, %d tokens computed, %d preemptions, %.1f sequences running"
                            + " on average%n"
                            + "  paged: %.2f%% of allocated token slots unused (average over steps),"
                            + " %.2f slots per running sequence; at peak %d of %d slots (%.2f%%)%n"
                            + "  a contiguous reservation of prompt + maxNewTokens per request would leave %.1f%%"
                            + " unused%n",
                    steps, m.tokensComputed, s.preemptions(), (double) runningSum / steps, 100 * waste,
                    (double) wastedSum / runningSum, wasteAtPeak, peakAllocated, 100.0 * wasteAtPeak / peakAllocated,
                    100 * contiguousWaste);
            assertEquals(200, finished);
            assertEquals(0, c.usedBlocks());
            assertTrue(waste < 0.02, "waste " + waste);
            assertTrue(contiguousWaste > 5 * waste, "paged allocation should waste far less than reservation");
        }
    }

    /** Bytes per token per layer (8 kv heads of 128, keys and values) and the saving against F16. */
    @Test
    void memory_perStorage_ratiosAgainstF16() {
        long f16 = KvCacheConfig.of(1, 8, 128, 16, 1, KvStorage.F16).bytesPerToken(0);
        System.out.println("KV bytes per token and layer (8 kv heads x 128, K and V), and F16 / storage:");
        for (KvStorage s : KvStorage.values()) {
            KvCacheConfig cfg = KvCacheConfig.of(1, 8, 128, 16, 64, s);
            long perToken = cfg.bytesPerToken(0);
            try (PagedKvCache c = new PagedKvCache(cfg)) { // the pool really is that size
                assertEquals(perToken * 16 * 64, c.memoryStats().ramPoolBytes());
            }
            System.out.printf(Locale.ROOT, "  %-5s %5d bytes  %.2fx%n", s, perToken, (double) f16 / perToken);
        }
        assertEquals(4096, f16);
        assertEquals(1.88, 4096.0 / KvCacheConfig.of(1, 8, 128, 16, 1, KvStorage.Q8_0).bytesPerToken(0), 0.01);
        assertEquals(2.91, 4096.0 / KvCacheConfig.of(1, 8, 128, 16, 1, KvStorage.Q5_0).bytesPerToken(0), 0.01);
        assertEquals(3.56, 4096.0 / KvCacheConfig.of(1, 8, 128, 16, 1, KvStorage.Q4_0).bytesPerToken(0), 0.01);
    }

    /**
     * Decode attention for four sequences (lengths 64, 300, 1024, 2048; 32 query heads over 8 kv heads of 128)
     * with q, K and V drawn from N(0, 1), through each storage type, against double-precision attention over
     * the exact f32 K/V. Relative error is ||out - ref||_2 / ||ref||_2 over all outputs.
     */
    @Test
    void attentionError_perStorage_againstExactF32() {
        int heads = 32;
        int kvHeads = 8;
        int d = 128;
        int[] lens = {64, 300, 1024, 2048};
        Random r = new Random(99);
        float[][] ks = new float[lens.length][];
        float[][] vs = new float[lens.length][];
        for (int i = 0; i < lens.length; i++) {
            ks[i] = gaussian(r, lens[i] * kvHeads * d);
            vs[i] = gaussian(r, lens[i] * kvHeads * d);
        }
        float[] q = gaussian(r, lens.length * heads * d);
        double scale = 1 / Math.sqrt(d);
        double[] ref = new double[q.length];
        for (int i = 0; i < lens.length; i++) {
            double[] o = AttentionReference.attend(q, i * heads * d, ks[i], vs[i], 1, lens[i], heads, kvHeads, d,
                    scale);
            System.arraycopy(o, 0, ref, i * heads * d, o.length);
        }
        System.out.println("Decode attention vs exact f32 K/V (N(0,1) data, 32 heads / 8 kv heads x 128, "
                + "lengths 64-2048):");
        System.out.println("  storage   max abs err   mean abs err   relative L2 err");
        double[] relative = new double[KvStorage.values().length];
        for (KvStorage s : KvStorage.values()) {
            int blocks = 0;
            for (int len : lens) {
                blocks += (len + 15) / 16;
            }
            try (PagedKvCache c = new PagedKvCache(KvCacheConfig.of(1, kvHeads, d, 16, blocks, s))) {
                KvSequence[] seqs = new KvSequence[lens.length];
                for (int i = 0; i < lens.length; i++) {
                    seqs[i] = c.newSequence(i);
                    c.append(seqs[i], lens[i]);
                    c.write(seqs[i], 0, 0, lens[i], ks[i], 0, vs[i], 0);
                }
                float[] out = new float[q.length];
                try (PagedAttention a = new PagedAttention(c, heads, (float) scale, 2)) {
                    a.forward(0, seqs, new int[] {1, 1, 1, 1}, 4, q, out);
                }
                double max = 0;
                double sum = 0;
                double errSq = 0;
                double refSq = 0;
                for (int i = 0; i < out.length; i++) {
                    double e = Math.abs(out[i] - ref[i]);
                    max = Math.max(max, e);
                    sum += e;
                    errSq += e * e;
                    refSq += ref[i] * ref[i];
                }
                relative[s.ordinal()] = Math.sqrt(errSq / refSq);
                System.out.printf(Locale.ROOT, "  %-7s   %.3e     %.3e      %.3e%n", s, max, sum / out.length,
                        relative[s.ordinal()]);
            }
        }
        // F32 is only rounding; each coarser format is worse than the finer one; the bounds are loose.
        assertTrue(relative[KvStorage.F32.ordinal()] < 1e-5);
        assertTrue(relative[KvStorage.F16.ordinal()] < 1e-3);
        assertTrue(relative[KvStorage.Q8_0.ordinal()] < 2e-2);
        assertTrue(relative[KvStorage.Q4_0.ordinal()] < 2e-1);
        for (int i = 1; i < relative.length; i++) {
            assertTrue(relative[i] > relative[i - 1], KvStorage.values()[i] + " should be coarser");
        }
    }

    private static float[] gaussian(Random r, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) r.nextGaussian();
        }
        return x;
    }
}
