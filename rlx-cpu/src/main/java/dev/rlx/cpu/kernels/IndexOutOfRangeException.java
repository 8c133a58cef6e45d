package dev.rlx.cpu.kernels;

import dev.rlx.ir.RlxException;
import dev.rlx.ir.Shape;
import java.util.Arrays;

/**
 * Index data held a value outside its range: an index tensor a value outside {@code [-n, n)} for the axis it
 * indexes (gather, scatter-add; thrown before any element is read or written at that index, elements of the
 * output written before it are left as they are), or paged attention's block table a slot its pools lack, its kv
 * lengths more tokens than the table holds or fewer than the queries, its query offsets rows outside q or out of
 * order (thrown before anything is written). The message names the node, the operand, the value, where it sits
 * and the valid range.
 */
public final class IndexOutOfRangeException extends RlxException {
    public IndexOutOfRangeException(String message) {
        super(message);
    }

    /**
     * @param node     the node, as {@code Node.describe()} gives it
     * @param op       the op label, e.g. {@code gather}
     * @param index    the offending value
     * @param position its row-major position in {@code indices}
     */
    static IndexOutOfRangeException of(String node, String op, long index, long position, Shape indices, int axis,
                                       Shape data) {
        int n = data.dim(axis);
        return new IndexOutOfRangeException(String.format(java.util.Locale.ROOT,
                "[%s] %s: index %d at %s of indices %s is out of range for axis %d of %s: expected %d <= index < %d",
                op, node, index, Arrays.toString(coordinates(position, indices.dims())), indices, axis, data, -n, n));
    }

    private static long[] coordinates(long flat, int[] dims) {
        long[] c = new long[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            c[d] = flat % dims[d];
            flat /= dims[d];
        }
        return c;
    }
}
