package dev.rlx.cpu.kernels;

/**
 * A tensor walked as lines along one axis, for the ops that work along an axis (softmax, cumsum, arg-max,
 * top-k, scatter-add): line {@code l} is the {@code l}-th row-major position over every other dim, and
 * element {@code j} of it is at {@code start(k, l) + j * step(k)} for operand {@code k}. Operands share the
 * dims other than the axis and may differ along it (top-k writes k of n). Immutable; safe to share.
 */
final class AxisLines {
    private final OffsetMap starts;
    private final long[] steps; // per operand: stride along the axis
    private final int length;

    private AxisLines(OffsetMap starts, long[] steps, int length) {
        this.starts = starts;
        this.steps = steps;
        this.length = length;
    }

    /**
     * Lines along {@code axis} of {@code dims}; operand {@code k} has element strides {@code strides[k]}
     * (over the same rank; its size along the axis may differ from {@code dims[axis]}).
     */
    static AxisLines of(int[] dims, int axis, long[]... strides) {
        int[] other = new int[dims.length - 1];
        long[][] otherStrides = new long[strides.length][dims.length - 1];
        long[] steps = new long[strides.length];
        for (int d = 0, at = 0; d < dims.length; d++) {
            if (d == axis) {
                continue;
            }
            other[at] = dims[d];
            for (int k = 0; k < strides.length; k++) {
                otherStrides[k][at] = strides[k][d];
            }
            at++;
        }
        for (int k = 0; k < strides.length; k++) {
            steps[k] = strides[k][axis];
        }
        return new AxisLines(OffsetMap.of(other, otherStrides), steps, dims[axis]);
    }

    /** Number of lines (the product of the other dims). */
    int count() {
        return starts.size();
    }

    /** Elements per line ({@code dims[axis]}). */
    int length() {
        return length;
    }

    /** Element offset of line {@code line}'s first element in operand {@code k}. */
    long start(int k, int line) {
        return starts.offset(k, line);
    }

    /** Element stride along the axis in operand {@code k}. */
    long step(int k) {
        return steps[k];
    }
}
