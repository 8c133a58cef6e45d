package dev.rlx.testkit.reference;

import dev.rlx.ir.Shape;
import java.util.Arrays;

/**
 * Gather and scatter-add (ONNX Gather, ScatterElements with add): negative indices count from the end, an index
 * outside {@code [-n, n)} is an error naming it and its position.
 */
final class IndexReference {
    private IndexReference() {}

    /** {@code out[a.., i.., b..] = data[a.., indices[i..], b..]} along {@code axis}. */
    static RefTensor gather(RefTensor data, RefTensor indices, int axis, Shape out) {
        int[] dd = data.shape.dims();
        int outer = (int) data.shape.elementCount(0, axis);
        int n = dd[axis];
        int inner = (int) data.shape.elementCount(axis + 1, dd.length);
        int count = indices.size();
        RefTensor y = RefTensor.zeros(out);
        for (int o = 0; o < outer; o++) {
            for (int i = 0; i < count; i++) {
                int row = resolve(indices, i, n, "gather", data.shape, axis);
                for (int k = 0; k < inner; k++) {
                    y.copy((o * count + i) * inner + k, data, (o * n + row) * inner + k);
                }
            }
        }
        return y;
    }

    /**
     * {@code data} with {@code updates[p]} added, for every position p of {@code indices}, at p with coordinate
     * {@code axis} replaced by {@code indices[p]}; duplicates accumulate. Floats sum in double and are stored
     * once, integers wrap.
     */
    static RefTensor scatterAdd(RefTensor data, RefTensor indices, RefTensor updates, int axis, Shape out) {
        int[] dd = data.shape.dims();
        int width = data.dtype().isComplex() ? 2 : 1;
        double[] acc = data.integral() ? null : data.real.clone();
        long[] lacc = data.integral() ? data.ints.clone() : null;
        for (int p = 0; p < indices.size(); p++) {
            int[] c = Index.unravel(p, indices.shape.dims());
            c[axis] = resolve(indices, p, dd[axis], "scatter_add", data.shape, axis);
            int at = Index.flat(c, dd);
            if (lacc != null) {
                lacc[at] += updates.getLong(p);
            } else {
                for (int w = 0; w < width; w++) {
                    acc[width * at + w] += updates.real[width * p + w];
                }
            }
        }
        RefTensor y = RefTensor.zeros(out);
        for (int i = 0; i < y.size(); i++) {
            if (lacc != null) {
                y.setLong(i, lacc[i]);
            } else if (width == 2) {
                y.real[2 * i] = (float) acc[2 * i];
                y.real[2 * i + 1] = (float) acc[2 * i + 1];
            } else {
                y.set(i, acc[i]);
            }
        }
        return y;
    }

    /** Index {@code p} of {@code indices} as a position in {@code [0, n)}. */
    private static int resolve(RefTensor indices, int p, int n, String op, Shape data, int axis) {
        long v = indices.getLong(p);
        if (v < -n || v >= n) {
            throw new ReferenceException(String.format(java.util.Locale.ROOT,
                    "index %d at %s of indices %s is out of range for axis %d of %s: expected %d <= index < %d (%s)", v,
                    Arrays.toString(Index.unravel(p, indices.shape.dims())), indices.shape, axis, data, -n, n, op));
        }
        return (int) (v < 0 ? v + n : v);
    }
}
