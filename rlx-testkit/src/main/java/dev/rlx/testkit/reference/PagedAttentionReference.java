package dev.rlx.testkit.reference;

import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * {@code Op.PagedAttention} in double: each sequence's keys and values decoded token by token from the pool (or
 * spill) slot its block table names, then causal attention of its query rows over them, as the op's Javadoc
 * defines it. Rows no sequence owns are zero.
 */
final class PagedAttentionReference {
    private PagedAttentionReference() {}

    /** Inputs (q, pool, spill, blockTable, kvLens, queryOffsets). */
    static RefTensor pagedAttention(Op.PagedAttention op, List<RefTensor> in, Shape out) {
        RefTensor q = in.get(0);
        MemorySegment pool = bytes(in.get(1));
        MemorySegment spill = bytes(in.get(2));
        RefTensor table = in.get(3);
        long[] kvLens = in.get(4).ints;
        long[] offsets = in.get(5).ints;
        int tokens = q.shape.dim(0);
        int heads = op.numHeads();
        int d = op.headDim();
        int group = heads / op.kvHeads();
        int tpb = op.tokensPerBlock();
        int maxBlocks = table.shape.dim(1);
        long blockBytes = op.blockBytes();
        long rowBytes = op.headRowBytes();
        double[] y = new double[tokens * heads * d];
        for (int s = 0; s < kvLens.length; s++) {
            int first = (int) offsets[s];
            int n = (int) (offsets[s + 1] - offsets[s]);
            int len = (int) kvLens[s];
            if (first < 0 || n < 0 || first + n > tokens || n > len || len > (long) maxBlocks * tpb) {
                throw new ReferenceException(String.format(Locale.ROOT, "paged_attention: sequence %d has offsets "
                        + "[%d, %d) of %d rows and %d tokens of at most %d", s, first, first + n, tokens, len,
                        maxBlocks * tpb));
            }
            float[][][] keys = new float[op.kvHeads()][len][d];
            float[][][] values = new float[op.kvHeads()][len][d];
            for (int t = 0; t < len; t++) {
                long e = table.ints[s * maxBlocks + t / tpb];
                MemorySegment src = e >= 0 ? pool : spill;
                long slot = e >= 0 ? e : -(e + 1);
                if (slot >= src.byteSize() / Math.max(1, blockBytes)) {
                    throw new ReferenceException("paged_attention: sequence " + s + " names slot " + e
                            + " outside its pool");
                }
                for (int kh = 0; kh < op.kvHeads(); kh++) {
                    long at = slot * blockBytes + ((long) kh * tpb + t % tpb) * rowBytes;
                    op.storage().decode(src, at, keys[kh][t], 0, d);
                    op.storage().decode(src, at + op.keysBytes(), values[kh][t], 0, d);
                }
            }
            for (int j = 0; j < n; j++) {
                int row = first + j;
                int visible = len - n + j + 1;
                for (int h = 0; h < heads; h++) {
                    int kh = h / group;
                    int qo = (row * heads + h) * d;
                    double[] score = new double[visible];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int t = 0; t < visible; t++) {
                        double dot = 0;
                        for (int i = 0; i < d; i++) {
                            dot += q.real[qo + i] * keys[kh][t][i];
                        }
                        score[t] = op.scale() * dot;
                        max = Math.max(max, score[t]);
                    }
                    double sum = 0;
                    for (int t = 0; t < visible; t++) {
                        score[t] = Math.exp(score[t] - max);
                        sum += score[t];
                    }
                    for (int t = 0; t < visible; t++) {
                        for (int i = 0; i < d; i++) {
                            y[qo + i] += score[t] / sum * values[kh][t][i];
                        }
                    }
                }
            }
        }
        return RefTensor.rounded(out, y);
    }

    /** A u8 tensor's elements as bytes. */
    private static MemorySegment bytes(RefTensor t) {
        byte[] b = new byte[t.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) t.ints[i];
        }
        return MemorySegment.ofArray(b);
    }
}
