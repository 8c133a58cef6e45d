package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;

/** Small IR-building helpers the converters share: axes, constants, casts, reshapes. */
final class Lower {
    private Lower() {}

    /** ONNX axis (negative counts from the end) made non-negative, checked against {@code rank}. */
    static int axis(NodeCtx c, long axis, int rank) {
        long a = axis < 0 ? axis + rank : axis;
        if (a < 0 || a >= Math.max(rank, 1)) {
            throw c.fail("axis %d is out of range for rank %d", axis, rank);
        }
        return (int) a;
    }

    /** Several axes made non-negative, sorted and checked for repeats. */
    static int[] axes(NodeCtx c, long[] axes, int rank) {
        int[] out = new int[axes.length];
        for (int i = 0; i < axes.length; i++) {
            out[i] = axis(c, axes[i], rank);
        }
        java.util.Arrays.sort(out);
        for (int i = 1; i < out.length; i++) {
            if (out[i] == out[i - 1]) {
                throw c.fail("axis %d is listed twice in %s", out[i], java.util.Arrays.toString(axes));
            }
        }
        return out;
    }

    /** A rank-0 constant of {@code t}. */
    static Value scalar(Graph g, DType t, double v) {
        return g.scalar(t, v);
    }

    static Value cast(Graph g, Value x, DType t) {
        return x.dtype() == t ? x : g.cast(x, t);
    }

    static Value reshape(Graph g, Value x, int... dims) {
        return java.util.Arrays.equals(x.shape().dims(), dims) ? x : g.reshape(x, dims);
    }

    /** {@code x} with size-1 dims inserted so that they land at {@code axes} of the result (sorted). */
    static Value unsqueeze(Graph g, Value x, int... axes) {
        List<Integer> d = new ArrayList<>(x.shape().dimList());
        for (int a : axes) {
            d.add(a, 1);
        }
        return reshape(g, x, d.stream().mapToInt(Integer::intValue).toArray());
    }

    /** {@code x}'s dims with {@code axes} removed. */
    static int[] without(Shape s, int... axes) {
        List<Integer> d = new ArrayList<>();
        outer:
        for (int i = 0; i < s.rank(); i++) {
            for (int a : axes) {
                if (a == i) {
                    continue outer;
                }
            }
            d.add(s.dim(i));
        }
        return d.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The long values as ints, or an error naming {@code what}. */
    static int[] ints(NodeCtx c, long[] v, String what) {
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            if (v[i] != (int) v[i]) {
                throw c.fail("%s %d does not fit a 32-bit int", what, v[i]);
            }
            out[i] = (int) v[i];
        }
        return out;
    }

    /** The inverse of permutation {@code p}. */
    static int[] inverse(int[] p) {
        int[] q = new int[p.length];
        for (int i = 0; i < p.length; i++) {
            q[p[i]] = i;
        }
        return q;
    }

    /** {@code x} transposed by {@code perm}, or {@code x} itself for the identity. */
    static Value transpose(Graph g, Value x, int[] perm) {
        for (int i = 0; i < perm.length; i++) {
            if (perm[i] != i) {
                return g.transpose(x, perm);
            }
        }
        return x;
    }

    /** The ints as a list (the IR records take {@code List<Integer>}). */
    static List<Integer> list(int... v) {
        List<Integer> out = new ArrayList<>(v.length);
        for (int x : v) {
            out.add(x);
        }
        return out;
    }
}
