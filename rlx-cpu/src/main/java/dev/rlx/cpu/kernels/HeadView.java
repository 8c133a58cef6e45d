package dev.rlx.cpu.kernels;

import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Shape;

/**
 * Where each head vector of an attention or rope operand starts, for its {@link HeadLayout}: element
 * strides of batch, sequence position and head. The head dim itself is contiguous in every layout.
 *
 * @param batch  B
 * @param seq    S
 * @param heads  H
 */
record HeadView(int batch, int seq, int heads, long batchStride, long seqStride, long headStride) {
    /**
     * The view of a contiguous tensor of shape {@code s}: {@code [B, S, H*D]} or {@code [B, S, H, D]} for
     * BSHD, {@code [B, H, S, D]} for BHSD (the op's shape rules have already checked which applies).
     */
    static HeadView of(Shape s, HeadLayout layout, int headDim) {
        int b = s.dim(0);
        if (layout == HeadLayout.BHSD) {
            int h = s.dim(1);
            int seq = s.dim(2);
            return new HeadView(b, seq, h, (long) h * seq * headDim, headDim, (long) seq * headDim);
        }
        int seq = s.dim(1);
        int h = s.rank() == 3 ? s.dim(2) / headDim : s.dim(2);
        return new HeadView(b, seq, h, (long) seq * h * headDim, (long) h * headDim, headDim);
    }

    /** Element offset of head {@code h} at position {@code s} of batch {@code b}. */
    long offset(int b, int s, int h) {
        return b * batchStride + s * seqStride + h * headStride;
    }
}
