package dev.rlx.testkit.reference;

import dev.rlx.ir.Shape;
import java.util.List;

/** Reshape, transpose, slice, concat and expand: every element copied bit for bit from where it comes from. */
final class MovementReference {
    private MovementReference() {}

    /** The same elements in the same row-major order. */
    static RefTensor reshape(RefTensor x, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        for (int i = 0; i < y.size(); i++) {
            y.copy(i, x, i);
        }
        return y;
    }

    /** {@code y[i_0, ..] = x[j]} with {@code j[perm[d]] = i_d}. */
    static RefTensor transpose(RefTensor x, List<Integer> perm, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int[] xd = x.shape.dims();
        int[] yd = out.dims();
        for (int i = 0; i < y.size(); i++) {
            int[] o = Index.unravel(i, yd);
            int[] in = new int[o.length];
            for (int d = 0; d < o.length; d++) {
                in[perm.get(d)] = o[d];
            }
            y.copy(i, x, Index.flat(in, xd));
        }
        return y;
    }

    /** Element i along {@code axis} is element {@code start + i * step} of x. */
    static RefTensor slice(RefTensor x, int axis, int start, int step, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int[] xd = x.shape.dims();
        int[] yd = out.dims();
        for (int i = 0; i < y.size(); i++) {
            int[] idx = Index.unravel(i, yd);
            idx[axis] = start + idx[axis] * step;
            y.copy(i, x, Index.flat(idx, xd));
        }
        return y;
    }

    /** The inputs one after another along {@code axis}. */
    static RefTensor concat(List<RefTensor> xs, int axis, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int[] yd = out.dims();
        for (int i = 0; i < y.size(); i++) {
            int[] idx = Index.unravel(i, yd);
            int part = 0;
            while (idx[axis] >= xs.get(part).shape.dim(axis)) {
                idx[axis] -= xs.get(part).shape.dim(axis);
                part++;
            }
            y.copy(i, xs.get(part), Index.flat(idx, xs.get(part).shape.dims()));
        }
        return y;
    }

    /** {@code numpy.broadcast_to}. */
    static RefTensor expand(RefTensor x, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int[] map = Index.broadcast(x.shape.dims(), out.dims());
        for (int i = 0; i < y.size(); i++) {
            y.copy(i, x, map[i]);
        }
        return y;
    }
}
