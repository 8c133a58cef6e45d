package dev.rlx.cpu.kernels;

/**
 * Row-major positions over some dims, each mapped to an element offset per operand (one stride set per
 * operand). Dims of size 1 are dropped when it is built, so mapping a position costs one div/mod per
 * remaining dim; callers map once per line or output, never per element. Immutable; safe to share.
 */
final class OffsetMap {
    private final int[] dims;       // dims of size > 1, outermost first
    private final long[][] strides; // (operands, dims.length)
    private final int size;

    private OffsetMap(int[] dims, long[][] strides, int size) {
        this.dims = dims;
        this.strides = strides;
        this.size = size;
    }

    /**
     * Positions over {@code dims}; operand {@code k} steps by {@code strides[k][d]} elements along dim
     * {@code d}.
     *
     * @throws IllegalArgumentException when there are more than 2^31-1 positions
     */
    static OffsetMap of(int[] dims, long[]... strides) {
        long count = 1;
        int kept = 0;
        for (int d : dims) {
            count *= d;
            kept += d != 1 ? 1 : 0;
        }
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(count + " positions; more than 2^31-1 is not supported");
        }
        int[] kd = new int[kept];
        long[][] ks = new long[strides.length][kept];
        int at = 0;
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] == 1) {
                continue;
            }
            kd[at] = dims[d];
            for (int k = 0; k < strides.length; k++) {
                ks[k][at] = strides[k][d];
            }
            at++;
        }
        return new OffsetMap(kd, ks, (int) count);
    }

    /** Number of positions (0 when a dim is 0). */
    int size() {
        return size;
    }

    /** Element offset of position {@code pos} for operand {@code k}. */
    long offset(int k, int pos) {
        long off = 0;
        long[] s = strides[k];
        int r = pos;
        for (int d = dims.length - 1; d >= 0; d--) {
            int n = dims[d];
            off += (long) (r % n) * s[d];
            r /= n;
        }
        return off;
    }
}
