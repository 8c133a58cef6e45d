package dev.rlx.testkit.reference;

/** Row-major index arithmetic and NumPy broadcasting for the reference ops, in plain int loops. */
final class Index {
    private Index() {}

    static int count(int[] dims) {
        int n = 1;
        for (int d : dims) {
            n *= d;
        }
        return n;
    }

    /** The multi-index of flat position {@code flat} in a row-major tensor of {@code dims}. */
    static int[] unravel(int flat, int[] dims) {
        int[] idx = new int[dims.length];
        for (int i = dims.length - 1; i >= 0; i--) {
            idx[i] = flat % dims[i];
            flat /= dims[i];
        }
        return idx;
    }

    /** The flat position of {@code idx} in a row-major tensor of {@code dims}. */
    static int flat(int[] idx, int[] dims) {
        int f = 0;
        for (int i = 0; i < dims.length; i++) {
            f = f * dims[i] + idx[i];
        }
        return f;
    }

    /**
     * For each flat position of an output of {@code outDims}, the flat position of the operand of
     * {@code operandDims} it reads under NumPy broadcasting (dims right-aligned; a size-1 dim repeats).
     */
    static int[] broadcast(int[] operandDims, int[] outDims) {
        int[] map = new int[count(outDims)];
        int off = outDims.length - operandDims.length;
        int[] idx = new int[outDims.length]; // odometer over the output, row-major
        for (int o = 0; o < map.length; o++) {
            if (o > 0) {
                for (int d = outDims.length - 1; ++idx[d] == outDims[d]; d--) {
                    idx[d] = 0;
                }
            }
            int f = 0;
            for (int i = 0; i < operandDims.length; i++) {
                f = f * operandDims[i] + (operandDims[i] == 1 ? 0 : idx[off + i]);
            }
            map[o] = f;
        }
        return map;
    }

    /**
     * The flat positions of the lines along {@code axis} of a row-major tensor of {@code dims}: line l (row-major
     * over the other dims) lists its elements in axis order.
     */
    static int[][] lines(int[] dims, int axis) {
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
}
