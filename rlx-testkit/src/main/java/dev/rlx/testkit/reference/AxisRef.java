package dev.rlx.testkit.reference;

import dev.rlx.ir.HalfFloats;

/**
 * Plain-loop helpers for the reference side of the axis-kernel tests: which flat positions form each line
 * along an axis, and the rounding a value takes when stored in a narrow float type. Independent of the
 * kernels under test.
 */
public final class AxisRef {
    private AxisRef() {}

    /**
     * The lines along {@code axis} of a row-major tensor of {@code dims}: line l (row-major over the other
     * dims) lists the flat positions of its elements in axis order.
     */
    public static int[][] lines(int[] dims, int axis) {
        int outer = 1;
        for (int d = 0; d < axis; d++) {
            outer *= dims[d];
        }
        int inner = 1;
        for (int d = axis + 1; d < dims.length; d++) {
            inner *= dims[d];
        }
        int n = dims[axis];
        int[][] out = new int[outer * inner][n];
        for (int o = 0; o < outer; o++) {
            for (int i = 0; i < inner; i++) {
                for (int j = 0; j < n; j++) {
                    out[o * inner + i][j] = (o * n + j) * inner + i;
                }
            }
        }
        return out;
    }

    /** {@code dims} with {@code dims[axis]} replaced. */
    public static int[] withDim(int[] dims, int axis, int size) {
        int[] d = dims.clone();
        d[axis] = size;
        return d;
    }

    /** The value an f16 slot holds after storing {@code v}. */
    public static double f16(double v) {
        return HalfFloats.f16ToFloat(HalfFloats.toF16((float) v));
    }

    /** The value a bf16 slot holds after storing {@code v}. */
    public static double bf16(double v) {
        return HalfFloats.bf16ToFloat(HalfFloats.toBF16((float) v));
    }
}
