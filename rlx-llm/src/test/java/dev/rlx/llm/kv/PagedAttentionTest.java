package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link PagedAttention} against contiguous attention in double ({@link AttentionReference}) over the very
 * K/V the cache holds (read back, so quantised layers are compared with their own decoded values).
 */
class PagedAttentionTest {
    /**
     * Inputs lie in [-1, 1). The kernel rounds each q.k (headDim <= 128 terms) and each p.v accumulation in
     * f32, about 1e-7 relative per step, and rescales the accumulator at most once per block; outputs are
     * convex combinations of values in [-1, 1] (quantised values stay within about 1.07). 1e-5 absolute plus
     * 1e-4 relative is two orders above that and far below an indexing or masking mistake (~1e-1).
     */
    private static final double ATOL = 1e-5;
    private static final double RTOL = 1e-4;

    /** A cache with {@code lens.length} sequences filled with random K/V, and queries for each. */
    private record Setup(PagedKvCache cache, KvSequence[] seqs, int[] qlens, float[] q, int heads)
            implements AutoCloseable {
        @Override
        public void close() {
            cache.close();
        }
    }

    private static Setup setup(KvStorage storage, int heads, int kvHeads, int headDim, int tpb, int[] lens,
                               int[] qlens, long seed) {
        Random r = new Random(seed);
        int blocks = 0;
        for (int len : lens) {
            blocks += (len + tpb - 1) / tpb;
        }
        PagedKvCache c = new PagedKvCache(KvCacheConfig.of(1, kvHeads, headDim, tpb, blocks + 1, storage));
        KvSequence[] seqs = new KvSequence[lens.length];
        int tokens = 0;
        for (int i = 0; i < lens.length; i++) {
            seqs[i] = c.newSequence(i);
            c.append(seqs[i], lens[i]);
            float[] k = uniform(r, lens[i] * kvHeads * headDim);
            float[] v = uniform(r, lens[i] * kvHeads * headDim);
            c.write(seqs[i], 0, 0, lens[i], k, 0, v, 0);
            tokens += qlens[i];
        }
        return new Setup(c, seqs, qlens, uniform(r, tokens * heads * headDim), heads);
    }

    private static float[] uniform(Random r, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = r.nextFloat() * 2 - 1;
        }
        return x;
    }

    private static float[] run(Setup s, int threads) {
        KvCacheConfig cfg = s.cache().config();
        int total = 0;
        for (int n : s.qlens()) {
            total += n;
        }
        float[] out = new float[total * s.heads() * cfg.headDim()];
        try (PagedAttention a = new PagedAttention(s.cache(), s.heads(), (float) (1 / Math.sqrt(cfg.headDim())), threads)) {
            a.forward(0, s.seqs(), s.qlens(), s.seqs().length, s.q(), out);
        }
        return out;
    }

    /** Checks every sequence's slice of {@code out} against the reference over the cache's own K/V. */
    private static void check(Setup s, float[] out) {
        KvCacheConfig cfg = s.cache().config();
        int d = cfg.headDim();
        int kvh = cfg.kvHeads();
        int token = 0;
        for (int i = 0; i < s.seqs().length; i++) {
            KvSequence seq = s.seqs()[i];
            int len = seq.length();
            float[] k = new float[len * kvh * d];
            float[] v = new float[len * kvh * d];
            s.cache().read(seq, 0, 0, len, k, 0, v, 0);
            int qlen = s.qlens()[i];
            double[] want = AttentionReference.attend(s.q(), token * s.heads() * d, k, v, qlen, len, s.heads(), kvh,
                    d, (float) (1 / Math.sqrt(d)));
            for (int j = 0; j < want.length; j++) {
                double got = out[token * s.heads() * d + j];
                assertTrue(Math.abs(got - want[j]) <= ATOL + RTOL * Math.abs(want[j]),
                        "sequence " + i + " element " + j + ": " + got + " vs " + want[j]);
            }
            token += qlen;
        }
    }

    @Test
    void forward_decodeBatchOfDifferentLengths_matchesContiguous() {
        int[] lens = {1, 7, 16, 17, 33, 100};
        try (Setup s = setup(KvStorage.F32, 8, 2, 64, 16, lens, new int[] {1, 1, 1, 1, 1, 1}, 1)) {
            check(s, run(s, 1));
        }
    }

    @Test
    void forward_prefillChunksMixedWithDecodes_causalWithinChunk() {
        // Sequence 0 decodes; 1 prefills its whole prompt of 40; 2 has 20 cached tokens and a chunk of 13 new
        // ones (query j sees keys 0 .. 20 + j); 3 is a chunk of 70 (more than one query tile).
        int[] lens = {50, 40, 33, 90};
        try (Setup s = setup(KvStorage.F32, 4, 2, 32, 8, lens, new int[] {1, 40, 13, 70}, 2)) {
            check(s, run(s, 1));
        }
    }

    @ParameterizedTest(name = "{0} heads over {1} kv heads")
    @CsvSource({"4, 4", "8, 2", "8, 1", "64, 2"})
    void forward_groupedQueryHeads_mapHeadToKvHeadByGroup(int heads, int kvHeads) {
        // 64 / 2 = 32 heads per group: the tile holds a single query position.
        try (Setup s = setup(KvStorage.F32, heads, kvHeads, 32, 4, new int[] {11, 30}, new int[] {1, 5}, 3)) {
            check(s, run(s, 1));
        }
    }

    @ParameterizedTest
    @EnumSource(KvStorage.class)
    void forward_quantizedStorage_matchesContiguousOverDecodedValues(KvStorage storage) {
        try (Setup s = setup(storage, 8, 2, 64, 16, new int[] {5, 77, 130}, new int[] {1, 9, 1}, 4)) {
            check(s, run(s, 1));
        }
    }

    @Test
    void forward_threads_matchOneThread() {
        // Each work unit is computed by one thread in a fixed order, but not bit-identically across runs:
        // reduceLanes' summation order differs between interpreted and compiled code. 1e-6 is f32 rounding.
        int[] lens = {300, 17, 64, 5};
        try (Setup s = setup(KvStorage.Q4_0, 8, 2, 64, 16, lens, new int[] {1, 17, 32, 1}, 5)) {
            float[] one = run(s, 1);
            assertArrayEquals(one, run(s, 3), 1e-6f);
            check(s, run(s, 3));
        }
    }

    @Test
    void forward_forkedSequences_readSharedPrefixAndOwnSuffix() {
        Random r = new Random(6);
        int kvh = 2;
        int d = 32;
        try (PagedKvCache c = new PagedKvCache(KvCacheConfig.of(1, kvh, d, 4, 16, KvStorage.F16))) {
            KvSequence p = c.newSequence(1);
            c.append(p, 10);
            c.write(p, 0, 0, 10, uniform(r, 10 * kvh * d), 0, uniform(r, 10 * kvh * d), 0);
            KvSequence a = c.fork(p, 2);
            KvSequence b = c.fork(p, 3);
            for (KvSequence s : new KvSequence[] {p, a, b}) { // three different continuations
                c.append(s, 3);
                c.write(s, 0, 10, 3, uniform(r, 3 * kvh * d), 0, uniform(r, 3 * kvh * d), 0);
            }
            Setup s = new Setup(c, new KvSequence[] {p, a, b}, new int[] {1, 1, 2}, uniform(r, 4 * 4 * d), 4);
            float[] out = run(s, 1);
            check(s, out);
            c.audit();
        }
    }

    @Test
    void forward_badQueries_throwTypedErrors() {
        try (Setup s = setup(KvStorage.F32, 4, 2, 32, 4, new int[] {3}, new int[] {1}, 7)) {
            PagedKvCache c = s.cache();
            @SuppressWarnings("resource") // closed below, after the rejections
            PagedAttention a = new PagedAttention(c, 4, 0.1f, 1);
            float[] out = new float[4 * 32 * 4];
            KvSequence[] seqs = s.seqs();
            KvCacheException e = assertThrows(KvCacheException.class,
                    () -> a.forward(0, seqs, new int[] {4}, 1, new float[4 * 4 * 32], out));
            assertEquals(KvCacheException.Reason.OUT_OF_RANGE, e.reason());
            assertTrue(e.getMessage().contains("sequence 0 holds 3 tokens; 4 queries"), e.getMessage());
            assertEquals(KvCacheException.Reason.OUT_OF_RANGE, assertThrows(KvCacheException.class,
                    () -> a.forward(0, seqs, new int[] {0}, 1, s.q(), out)).reason());
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT, assertThrows(KvCacheException.class,
                    () -> a.forward(0, seqs, new int[] {2}, 1, s.q(), out)).reason()); // q holds 1 token
            assertEquals(KvCacheException.Reason.OUT_OF_RANGE, assertThrows(KvCacheException.class,
                    () -> a.forward(1, seqs, new int[] {1}, 1, s.q(), out)).reason());
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT, assertThrows(KvCacheException.class,
                    () -> new PagedAttention(c, 3, 0.1f, 1)).reason()); // 3 heads over 2 kv heads
            c.free(seqs[0]);
            assertEquals(KvCacheException.Reason.BAD_SEQUENCE, assertThrows(KvCacheException.class,
                    () -> a.forward(0, seqs, new int[] {1}, 1, s.q(), out)).reason());
            a.close();
        }
    }

    @Test
    void forward_emptyBatch_doesNothing() {
        try (PagedKvCache c = new PagedKvCache(KvCacheConfig.of(1, 1, 32, 4, 4, KvStorage.F32))) {
            try (PagedAttention a = new PagedAttention(c, 2, 0.5f, 2)) {
                a.forward(0, new KvSequence[0], new int[0], 0, new float[0], new float[0]);
            }
        }
    }
}
