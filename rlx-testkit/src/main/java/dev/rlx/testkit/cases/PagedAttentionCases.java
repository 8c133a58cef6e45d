package dev.rlx.testkit.cases;

import dev.rlx.ir.DType;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Paged attention over pools of every block format: decodes, prefill chunks, grouped-query heads, idle sequence
 * slots, padding rows and blocks in the spill pool. Pools hold values encoded from random floats (so quantised
 * scales are sane); the reference decodes the same bytes, so the only error is f32 accumulation against double:
 * 1e-5 absolute and relative on outputs in about [-1, 1].
 */
final class PagedAttentionCases {
    private PagedAttentionCases() {}

    private static final Tolerance F32 = Tolerance.of(1e-5, 1e-5, "dot products and the online softmax in f32 "
            + "against double over at most 70 keys");

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        for (BlockFormat f : BlockFormat.values()) {
            c.add(paged(f, 4, 2, 32, 4, new int[] {1, 9, 13}, new int[] {1, 9, 3}, 16, 6, "_decodePrefillChunk"));
        }
        c.add(paged(BlockFormat.F32, 8, 1, 64, 16, new int[] {70, 17}, new int[] {1, 17}, 20, 4, "_gqa8to1"));
        c.add(paged(BlockFormat.Q8_0, 6, 3, 32, 8, new int[] {5, 0, 33}, new int[] {5, 0, 2}, 12, 3, "_idleSlot"));
        c.add(paged(BlockFormat.F16, 2, 2, 96, 5, new int[] {11}, new int[] {1}, 4, 4, "_halfTheBlocksSpilled"));
        return new OpFamily("paged_attention", c);
    }

    /**
     * Sequences of {@code lens} tokens each bringing {@code queries[s]} query rows (padded to a multiple of 8
     * rows), over {@code slots} pool slots and {@code spillSlots} spill slots, the blocks shuffled over both.
     */
    private static OpCase paged(BlockFormat f, int heads, int kvHeads, int d, int tpb, int[] lens, int[] queries,
                                int slots, int spillSlots, String suffix) {
        int seqs = lens.length;
        int maxBlocks = 1;
        int rows = 0;
        for (int s = 0; s < seqs; s++) {
            maxBlocks = Math.max(maxBlocks, (lens[s] + tpb - 1) / tpb);
            rows += queries[s];
        }
        int tokens = (rows + 7) / 8 * 8; // padding rows past the batch
        Op.PagedAttention op = new Op.PagedAttention(heads, kvHeads, d, tpb, f, (float) (1 / Math.sqrt(d)));
        int blocks = maxBlocks;
        long[] offsets = new long[seqs + 1];
        for (int s = 0; s < seqs; s++) {
            offsets[s + 1] = offsets[s] + queries[s];
        }
        long[] kvLens = new long[seqs];
        for (int s = 0; s < seqs; s++) {
            kvLens[s] = lens[s];
        }
        String name = "pagedAttention_" + f.name().toLowerCase(java.util.Locale.ROOT) + "_h" + heads + "kv" + kvHeads
                + "d" + d + "tpb" + tpb + suffix;
        return OpCase.named(name)
                .graph(g -> g.setOutputs(g.pagedAttention(
                        g.input("q", Shape.of(DType.F32, tokens, heads, d)),
                        g.input("pool", Shape.of(DType.U8, slots, op.blockBytes())),
                        g.input("spill", Shape.of(DType.U8, spillSlots, op.blockBytes())),
                        g.input("table", Shape.of(DType.I32, seqs, blocks)),
                        g.input("kv_lens", Shape.of(DType.I32, seqs)),
                        g.input("query_offsets", Shape.of(DType.I32, seqs + 1)), op)))
                .data("pool", encoded(f, op))
                .data("spill", encoded(f, op))
                .data("table", (shape, r) -> table(shape, r, slots, spillSlots))
                .data("kv_lens", Data.longs(kvLens))
                .data("query_offsets", Data.longs(offsets))
                .tolerance(DType.F32, F32)
                .build();
    }

    /** Pool bytes: every row of every block encoded from floats uniform in [-1, 1). */
    private static Data encoded(BlockFormat f, Op.PagedAttention op) {
        return (shape, r) -> {
            int slots = shape.dim(0);
            byte[] bytes = new byte[Math.toIntExact(shape.byteSize())];
            MemorySegment seg = MemorySegment.ofArray(bytes);
            float[] row = new float[op.headDim()];
            long rowBytes = op.headRowBytes();
            for (long at = 0; at + rowBytes <= (long) slots * op.blockBytes(); at += rowBytes) {
                for (int i = 0; i < row.length; i++) {
                    row[i] = r.nextFloat() * 2 - 1;
                }
                f.encode(row, 0, seg, at, row.length);
            }
            return Tensor.ofBytes(shape, bytes);
        };
    }

    /** Distinct slots for every entry, drawn over the pool (as {@code e}) and the spill (as {@code -(e+1)}). */
    private static Tensor table(Shape shape, Random r, int slots, int spillSlots) {
        List<Integer> free = new ArrayList<>();
        for (int e = 0; e < slots; e++) {
            free.add(e);
        }
        for (int e = 0; e < spillSlots; e++) {
            free.add(-(e + 1));
        }
        java.util.Collections.shuffle(free, r);
        int n = Math.toIntExact(shape.elementCount());
        int[] v = new int[n];
        for (int i = 0; i < n; i++) {
            v[i] = free.get(i % free.size());
        }
        byte[] b = new byte[n * 4];
        MemorySegment.copy(v, 0, MemorySegment.ofArray(b), ValueLayout.JAVA_INT_UNALIGNED, 0, n);
        return Tensor.ofBytes(shape, b);
    }
}
