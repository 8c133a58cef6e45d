package dev.rlx.cpu.kernels;

import dev.rlx.ir.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * A row-major walk over an output of some dims, with every operand addressed through its own element
 * strides (0 along broadcast dims) and base offset. Dims of size 1 are dropped and dims that are contiguous
 * for every operand are merged, so a same-shape element-wise op becomes one long row and a bias add becomes
 * rows of the bias length. Immutable; safe to use from several threads.
 */
public final class Walk {
    private final int[] dims;
    private final long[][] strides;
    private final long[] base;
    private final int rows;
    private final int inner;

    private Walk(int[] dims, long[][] strides, long[] base) {
        this.dims = dims;
        this.strides = strides;
        this.base = base;
        long r = 1;
        for (int i = 0; i < dims.length - 1; i++) {
            r *= dims[i];
        }
        if (r > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("walk has " + r + " rows; more than 2^31-1 is not supported");
        }
        this.rows = (int) r;
        this.inner = dims[dims.length - 1];
    }

    /** Contiguous row-major strides of {@code s}. */
    public static long[] contiguous(Shape s) {
        return s.strides();
    }

    /**
     * Strides for reading {@code in} broadcast (NumPy rules) to an output of rank {@code outRank} with dims
     * {@code out}: 0 where {@code in} has size 1 or is missing.
     */
    public static long[] broadcast(Shape in, int[] out) {
        long[] s = new long[out.length];
        long[] c = in.strides();
        int off = out.length - in.rank();
        for (int i = 0; i < in.rank(); i++) {
            s[off + i] = in.dim(i) == 1 ? 0 : c[i];
        }
        return s;
    }

    /** A walk over {@code dims} with the given per-operand strides and zero base offsets. */
    public static Walk of(int[] dims, long[]... operandStrides) {
        return of(dims, operandStrides, new long[operandStrides.length]);
    }

    /** A walk over {@code dims} with per-operand strides and base offsets (in elements). */
    public static Walk of(int[] dims, long[][] operandStrides, long[] baseOffsets) {
        int k = operandStrides.length;
        List<Integer> keep = new ArrayList<>();
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] != 1) {
                keep.add(d);
            }
        }
        for (int d : dims) {
            if (d == 0) { // empty: nothing to walk
                return new Walk(new int[] {0}, new long[k][1], baseOffsets.clone());
            }
        }
        List<int[]> mergedDims = new ArrayList<>();
        List<long[]> mergedStrides = new ArrayList<>();
        for (int d : keep) {
            long[] s = new long[k];
            for (int o = 0; o < k; o++) {
                s[o] = operandStrides[o][d];
            }
            if (!mergedDims.isEmpty()) {
                int[] lastDim = mergedDims.get(mergedDims.size() - 1);
                long[] lastS = mergedStrides.get(mergedStrides.size() - 1);
                boolean contiguous = true;
                for (int o = 0; o < k; o++) {
                    contiguous &= lastS[o] == s[o] * dims[d];
                }
                if (contiguous) {
                    lastDim[0] *= dims[d];
                    System.arraycopy(s, 0, lastS, 0, k);
                    continue;
                }
            }
            mergedDims.add(new int[] {dims[d]});
            mergedStrides.add(s);
        }
        if (mergedDims.isEmpty()) {
            mergedDims.add(new int[] {1});
            mergedStrides.add(new long[k]);
        }
        int r = mergedDims.size();
        int[] nd = new int[r];
        long[][] ns = new long[k][r];
        for (int d = 0; d < r; d++) {
            nd[d] = mergedDims.get(d)[0];
            for (int o = 0; o < k; o++) {
                ns[o][d] = mergedStrides.get(d)[o];
            }
        }
        return new Walk(nd, ns, baseOffsets.clone());
    }

    /** Number of rows (product of all but the innermost merged dim). */
    public int rows() {
        return rows;
    }

    /** Length of each row. */
    public int inner() {
        return inner;
    }

    /** Stride of operand {@code k} along a row. */
    public long innerStride(int k) {
        return strides[k][dims.length - 1];
    }

    /** Element offset of the start of row {@code row} for operand {@code k}. */
    public long rowOffset(int k, int row) {
        long off = base[k];
        long[] s = strides[k];
        int r = row;
        for (int d = dims.length - 2; d >= 0; d--) {
            int n = dims[d];
            off += (long) (r % n) * s[d];
            r /= n;
        }
        return off;
    }

    /** Total elements walked. */
    public long elements() {
        return (long) rows * inner;
    }
}
