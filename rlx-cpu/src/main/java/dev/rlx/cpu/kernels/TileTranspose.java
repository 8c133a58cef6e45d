package dev.rlx.cpu.kernels;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Transposes W x W float tiles (W = the vector length) through vector registers, for packing a transposed
 * GEMM operand: log2(W) butterfly stages, each pairing the rows d apart (d = W/2, ..., 1) with two-vector
 * {@code selectFrom}. Packing a 64 x 64 block of attention's Q^T by scalar gathers took 3.2 us, a quarter
 * of the block's product at sequence 128.
 */
final class TileTranspose {
    private TileTranspose() {}

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int STAGES = Integer.numberOfTrailingZeros(W);
    /**
     * Lane sources of the stage pairing rows d = 2^s apart, at {@code s * W}: the upper row takes
     * {@code LOW} of the pair, the lower row {@code HIGH} (index W + l is lane l of the lower row).
     */
    private static final float[] LOW = new float[STAGES * W];
    private static final float[] HIGH = new float[STAGES * W];

    static {
        for (int s = 0; s < STAGES; s++) {
            int d = 1 << s;
            for (int l = 0; l < W; l++) {
                boolean upper = (l & d) == 0;
                LOW[s * W + l] = upper ? l : W + l - d;
                HIGH[s * W + l] = upper ? l + d : W + l;
            }
        }
    }

    /**
     * {@code dst[dOff + p * dStride + j] = src[sOff + j * sStride + p]} for {@code p, j < W} (offsets and strides
     * in floats); {@code tmp} holds W * W floats between the stages.
     */
    static void tile(MemorySegment src, long sOff, long sStride, MemorySegment dst, long dOff, long dStride,
                     MemorySegment tmp) {
        if (STAGES == 1) {
            stage(src, sOff, sStride, dst, dOff, dStride, 0);
            return;
        }
        stage(src, sOff, sStride, tmp, 0, W, STAGES - 1);
        for (int s = STAGES - 2; s > 0; s--) {
            stage(tmp, 0, W, tmp, 0, W, s);
        }
        stage(tmp, 0, W, dst, dOff, dStride, 0);
    }

    /** One butterfly stage from rows {@code in + i * inStride} to rows {@code out + i * outStride}; may be in place. */
    private static void stage(MemorySegment in, long inOff, long inStride, MemorySegment out, long outOff,
                              long outStride, int s) {
        int d = 1 << s;
        FloatVector low = FloatVector.fromArray(F, LOW, s * W);
        FloatVector high = FloatVector.fromArray(F, HIGH, s * W);
        for (int i = 0; i < W; i++) {
            if ((i & d) != 0) {
                continue;
            }
            FloatVector a = FloatVector.fromMemorySegment(F, in, (inOff + i * inStride) * 4, LE);
            FloatVector b = FloatVector.fromMemorySegment(F, in, (inOff + (i + d) * inStride) * 4, LE);
            low.selectFrom(a, b).intoMemorySegment(out, (outOff + i * outStride) * 4, LE);
            high.selectFrom(a, b).intoMemorySegment(out, (outOff + (i + d) * outStride) * 4, LE);
        }
    }
}
