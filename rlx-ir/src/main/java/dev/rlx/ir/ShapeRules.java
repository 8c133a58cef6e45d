package dev.rlx.ir;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Shared checks for the ops' shape rules. Every failure is a {@link ShapeException} starting {@code [op]}. */
final class ShapeRules {
    private ShapeRules() {}

    static ShapeException fail(String op, String format, Object... args) {
        return new ShapeException("[" + op + "] " + String.format(Locale.ROOT, format, args));
    }

    static void arity(String op, List<Shape> in, int n) {
        if (in.size() != n) {
            throw fail(op, "expected %d input%s but got %d", n, n == 1 ? "" : "s", in.size());
        }
    }

    static void arity(String op, List<Shape> in, int min, int max) {
        if (in.size() < min || in.size() > max) {
            throw fail(op, "expected %d to %d inputs but got %d", min, max, in.size());
        }
    }

    /** Normalises a possibly negative axis against {@code rank}. */
    static int axis(String op, int axis, int rank) {
        int a = axis < 0 ? axis + rank : axis;
        if (a < 0 || a >= rank) {
            throw fail(op, "axis %d is out of range for rank %d", axis, rank);
        }
        return a;
    }

    /** Normalises a possibly negative axis of {@code s}; the message names the shape. */
    static int axis(String op, int axis, Shape s) {
        int a = axis < 0 ? axis + s.rank() : axis;
        if (a < 0 || a >= s.rank()) {
            throw fail(op, "axis %d is out of range for %s (rank %d)", axis, s, s.rank());
        }
        return a;
    }

    /** Requires a normalised axis (0 &lt;= axis &lt; rank), as stored in op records. */
    static void storedAxis(String op, int axis, Shape s) {
        if (axis < 0 || axis >= s.rank()) {
            throw fail(op, "axis %d is out of range for operand %s", axis, s);
        }
    }

    static void sameDtype(String op, Shape a, Shape b) {
        if (a.dtype() != b.dtype()) {
            throw fail(op, "operand dtypes differ: %s vs %s (insert a cast; the common type is %s)", a, b,
                    DType.promote(a.dtype(), b.dtype()).label());
        }
    }

    static void requireFloat(String op, Shape s, String role) {
        if (!s.dtype().isFloat()) {
            throw fail(op, "%s must be a float type but is %s", role, s);
        }
    }

    static void requireNumeric(String op, Shape s, String role) {
        if (!s.dtype().isNumeric()) {
            throw fail(op, "%s must be numeric but is %s", role, s);
        }
    }

    static void requireIndex(String op, Shape s, String role) {
        if (s.dtype() != DType.I32 && s.dtype() != DType.I64) {
            throw fail(op, "%s must be i32 or i64 but is %s", role, s);
        }
    }

    /** NumPy broadcasting of any number of shapes' dims (right-aligned; 1 stretches; else equal). */
    static int[] broadcast(String op, Shape... shapes) {
        int rank = 0;
        for (Shape s : shapes) {
            rank = Math.max(rank, s.rank());
        }
        int[] out = new int[rank];
        Arrays.fill(out, 1);
        for (Shape s : shapes) {
            int[] d = s.dims();
            for (int i = 0; i < d.length; i++) {
                int o = rank - d.length + i;
                if (d[i] == out[o] || d[i] == 1) {
                    continue;
                }
                if (out[o] == 1) {
                    out[o] = d[i];
                } else {
                    throw fail(op, "shapes do not broadcast: %s at axis %d (size %d vs %d; sizes must match or be 1)",
                            Arrays.toString(shapes), o - rank, out[o], d[i]);
                }
            }
        }
        return out;
    }

    /** True when {@code from} broadcasts to exactly {@code to} (NumPy {@code broadcast_to}). */
    static boolean broadcastsTo(int[] from, int[] to) {
        if (from.length > to.length) {
            return false;
        }
        for (int i = 0; i < from.length; i++) {
            int t = to[to.length - from.length + i];
            if (from[i] != t && from[i] != 1) {
                return false;
            }
        }
        return true;
    }

    static void positive(String op, String what, int v) {
        if (v <= 0) {
            throw fail(op, "%s must be positive but is %d", what, v);
        }
    }

    static void nonNegative(String op, String what, int v) {
        if (v < 0) {
            throw fail(op, "%s must be non-negative but is %d", what, v);
        }
    }

    static int[] ints(List<Integer> l) {
        return l.stream().mapToInt(Integer::intValue).toArray();
    }

    static List<Integer> list(int... v) {
        return Arrays.stream(v).boxed().toList();
    }
}
