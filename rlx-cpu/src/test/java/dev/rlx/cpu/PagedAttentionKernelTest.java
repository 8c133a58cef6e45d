package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.kernels.IndexOutOfRangeException;
import dev.rlx.ir.Op;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Op.PagedAttention} through a compiled CPU graph against float64 causal attention over the values the pools
 * hold ({@link PagedKv}): every storage format, grouped-query heads, decodes and prefill chunks, sequences of
 * different lengths, padding rows, spilled blocks, odd sizes, and bad block-table data.
 */
class PagedAttentionKernelTest {
    /**
     * Inputs lie in [-1, 1). The kernel rounds each q.k (headDim <= 128 terms) and each p.v accumulation in f32,
     * about 1e-7 relative per step, and rescales the accumulator at most once per block; outputs are convex
     * combinations of values in [-1, 1] (quantised values stay within about 1.07). 1e-5 absolute plus 1e-4 relative
     * is two orders above that and far below an indexing or masking mistake (~1e-1).
     */
    private static final double ATOL = 1e-5;
    private static final double RTOL = 1e-4;

    private static float[] run(PagedKv kv, int threads) {
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(threads));
             CompiledGraph c = s.compile(kv.graph())) {
            kv.feed(c);
            c.run();
            float[] out = new float[kv.q.length];
            c.output(0).copyTo(out);
            return out;
        }
    }

    private static void check(PagedKv kv, float[] out) {
        double[] want = kv.reference();
        int rowFloats = kv.spec.numHeads() * kv.spec.headDim();
        for (int i = 0; i < want.length; i++) {
            int row = i / rowFloats;
            boolean padding = row < kv.offsets[0] || row >= kv.offsets[kv.lens.length];
            if (padding) {
                assertEquals(0f, out[i], "padding row " + row + " element " + i);
            } else {
                assertTrue(Math.abs(out[i] - want[i]) <= ATOL + RTOL * Math.abs(want[i]),
                        kv.spec + " row " + row + " element " + i + ": " + out[i] + " vs " + want[i]);
            }
        }
    }

    private static void check(PagedKv kv) {
        check(kv, run(kv, 1));
    }

    @ParameterizedTest
    @EnumSource(BlockFormat.class)
    void everyStorageFormat_matchesReferenceOverStoredValues(BlockFormat f) {
        check(new PagedKv(Op.PagedAttention.of(8, 2, 64, 16, f), new int[] {5, 77, 130}, new int[] {1, 9, 1}, 0, 0,
                0.3, 1));
    }

    @Test
    void decodeBatch_sequencesOfDifferentLengths() {
        // lengths around block boundaries: 1 token, under, exactly, just over one and several blocks
        check(new PagedKv(Op.PagedAttention.of(8, 2, 64, 16, BlockFormat.F32), new int[] {1, 7, 16, 17, 33, 100},
                new int[] {1, 1, 1, 1, 1, 1}, 0, 0, 0, 2));
    }

    @Test
    void prefillChunksMixedWithDecodes_causalWithinChunk() {
        // 0 decodes; 1 prefills its whole prompt of 40; 2 has 20 cached tokens and a chunk of 13 (query j sees keys
        // 0 .. 20 + j); 3 is a chunk of 70, more than one tile of query rows.
        check(new PagedKv(Op.PagedAttention.of(4, 2, 32, 8, BlockFormat.Q8_0), new int[] {50, 40, 33, 90},
                new int[] {1, 40, 13, 70}, 0, 0, 0.25, 3));
    }

    @ParameterizedTest(name = "{0} heads over {1} kv heads")
    @CsvSource({"4, 4", "8, 2", "8, 1", "64, 2", "6, 3"})
    void groupedQueryHeads_mapHeadToKvHeadByGroup(int heads, int kvHeads) {
        // 64 / 2 = 32 heads per group: a tile holds a single query position
        check(new PagedKv(Op.PagedAttention.of(heads, kvHeads, 32, 4, BlockFormat.F16), new int[] {11, 30},
                new int[] {1, 5}, 0, 0, 0.2, 4));
    }

    @ParameterizedTest(name = "headDim {0}, {1} tokens per block")
    @CsvSource({"1, 1", "5, 3", "17, 7", "33, 5", "3, 16"})
    void oddSizes(int headDim, int tpb) {
        check(new PagedKv(Op.PagedAttention.of(6, 2, headDim, tpb, BlockFormat.F32), new int[] {13, 2, 29},
                new int[] {4, 1, 29}, 0, 0, 0.3, 5));
        check(new PagedKv(Op.PagedAttention.of(3, 3, headDim, tpb, BlockFormat.F16), new int[] {19}, new int[] {1}, 0,
                0, 0, 6));
    }

    @Test
    void paddingRowsAndIdleSequences_giveZeros() {
        // rows 0..2 and the last 5 belong to no sequence; sequence 1 holds 12 tokens but has no queries this step,
        // sequence 3 holds nothing
        check(new PagedKv(Op.PagedAttention.of(4, 1, 32, 4, BlockFormat.Q4_0), new int[] {9, 12, 30, 0},
                new int[] {2, 0, 7, 0}, 3, 5, 0.3, 7));
    }

    @Test
    void rowsThatBecomePadding_areZeroedOnTheNextRun() {
        PagedKv kv = new PagedKv(Op.PagedAttention.of(4, 2, 32, 4, BlockFormat.F32), new int[] {10, 6},
                new int[] {4, 3}, 0, 3, 0, 8);
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             CompiledGraph c = s.compile(kv.graph())) {
            kv.feed(c);
            c.run();
            // now only sequence 1's last token is queried, from row 5: rows 0..4 and 6.. are padding
            int[] offsets = {5, 5, 6};
            int[] qlens = {0, 1};
            c.setInput("query_offsets", offsets);
            c.run();
            float[] out = new float[kv.q.length];
            c.output(0).copyTo(out);
            PagedKv same = new PagedKv(kv.spec, kv.lens, qlens, 5, kv.queryRows - 6, 0, 8);
            check(same, out);
        }
    }

    @Test
    void everyBlockSpilled_andNoRamSlotsUsed() {
        check(new PagedKv(Op.PagedAttention.of(4, 2, 64, 8, BlockFormat.Q5_0), new int[] {17, 40}, new int[] {1, 8},
                0, 0, 1.0, 9));
    }

    @Test
    void threads_matchOneThread() {
        // Each unit is computed by one part in a fixed order; 1e-6 covers reduceLanes summing in another order
        // interpreted than compiled.
        PagedKv kv = new PagedKv(Op.PagedAttention.of(8, 2, 64, 16, BlockFormat.Q4_0), new int[] {300, 17, 64, 5},
                new int[] {1, 17, 32, 1}, 2, 0, 0.3, 10);
        float[] one = run(kv, 1);
        float[] three = run(kv, 3);
        assertArrayEquals(one, three, 1e-6f);
        check(kv, three);
    }

    // ---------------------------------------------------------------- untrusted data

    /** Runs {@code kv} once, corrupts one input with {@code edit}, and expects a refusal naming {@code mentions}. */
    private static void refused(PagedKv kv, Consumer<CompiledGraph> edit, String... mentions) {
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(2));
             CompiledGraph c = s.compile(kv.graph())) {
            kv.feed(c);
            c.run();
            float[] before = new float[kv.q.length];
            c.output(0).copyTo(before);
            edit.accept(c);
            IndexOutOfRangeException e = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(e.getMessage().startsWith("[paged_attention] "), e.getMessage());
            for (String m : mentions) {
                assertTrue(e.getMessage().contains(m), "should mention '" + m + "': " + e.getMessage());
            }
            float[] after = new float[kv.q.length];
            c.output(0).copyTo(after);
            assertArrayEquals(before, after, "a refused run writes nothing");
        }
    }

    @Test
    void badBlockTableEntries_refused() {
        PagedKv kv = new PagedKv(Op.PagedAttention.of(4, 2, 32, 4, BlockFormat.F16), new int[] {10, 6},
                new int[] {1, 6}, 0, 0, 0.4, 11);
        int ramSlots = kv.pool.length / kv.spec.blockBytes();
        int spillSlots = kv.spill.length / kv.spec.blockBytes();
        for (int bad : new int[] {ramSlots, Integer.MAX_VALUE, -spillSlots - 1, Integer.MIN_VALUE}) {
            int[] table = kv.table.clone();
            table[kv.maxBlocks + 1] = bad; // sequence 1, block 1 (its second and last)
            refused(kv, c -> c.setInput("table", table), "blockTable[1][1] = " + bad, "pool has " + ramSlots,
                    "spill " + spillSlots);
        }
        // entries past a sequence's blocks are never read (PagedKv fills them with 2^30)
        check(kv);
    }

    @Test
    void badLengthsAndOffsets_refused() {
        PagedKv kv = new PagedKv(Op.PagedAttention.of(4, 2, 32, 4, BlockFormat.F32), new int[] {10, 6},
                new int[] {2, 3}, 1, 1, 0, 12);
        int tokens = kv.maxBlocks * 4;
        refused(kv, c -> c.setInput("kv_lens", new int[] {tokens + 1, 6}), "kvLens[0] = " + (tokens + 1));
        refused(kv, c -> c.setInput("kv_lens", new int[] {10, -1}), "kvLens[1] = -1");
        refused(kv, c -> c.setInput("kv_lens", new int[] {1, 6}), "sequence 0 has 2 query rows", "kvLens[0] = 1");
        int t = kv.queryRows;
        refused(kv, c -> c.setInput("query_offsets", new int[] {-1, 1, 4}), "queryOffsets[0] = -1");
        refused(kv, c -> c.setInput("query_offsets", new int[] {t + 1, t + 1, t + 1}), "queryOffsets[0] = " + (t + 1));
        refused(kv, c -> c.setInput("query_offsets", new int[] {3, 1, 4}), "queryOffsets[1] = 1");
        refused(kv, c -> c.setInput("query_offsets", new int[] {1, 3, t + 1}), "queryOffsets[2] = " + (t + 1),
                "T = " + t);
    }
}
