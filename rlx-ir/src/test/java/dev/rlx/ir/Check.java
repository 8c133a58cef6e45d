package dev.rlx.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.function.Executable;

/** Small helpers shared by the IR tests. */
final class Check {
    private Check() {}

    static Shape f32(int... dims) {
        return Shape.of(DType.F32, dims);
    }

    static Shape s(DType t, int... dims) {
        return Shape.of(t, dims);
    }

    /** A fresh input of {@code shape} named after its node id, so names never clash. */
    static Value in(Graph g, Shape shape) {
        return g.input("x" + g.size(), shape);
    }

    static Value in(Graph g, DType t, int... dims) {
        return in(g, Shape.of(t, dims));
    }

    /**
     * Asserts {@code call} throws a {@link ShapeException} whose message starts with {@code [op]} and contains
     * each of {@code mentions} (typically the offending shapes, printed as {@code f32[2,3]}).
     */
    static ShapeException rejects(String op, Executable call, String... mentions) {
        ShapeException e = assertThrows(ShapeException.class, call);
        String m = e.getMessage();
        assertTrue(m.startsWith("[" + op + "] "), () -> "message should start with [" + op + "]: " + m);
        for (String s : mentions) {
            assertTrue(m.contains(s), () -> "message should mention '" + s + "': " + m);
        }
        return e;
    }

    /** {@link #rejects} for a builder call on {@code g}, also checking the failed call added no node. */
    static ShapeException rejects(Graph g, String op, Executable call, String... mentions) {
        int before = g.size();
        ShapeException e = rejects(op, call, mentions);
        assertEquals(before, g.size(), "a rejected builder call must not add nodes");
        return e;
    }

    /** The single output shape of {@code op} applied to {@code inputs}. */
    static Shape out(Op op, Shape... inputs) {
        List<Shape> o = op.outputShapes(List.of(inputs));
        assertEquals(1, o.size(), () -> op + " should have one output but gives " + o);
        return o.get(0);
    }

    /**
     * NumPy broadcasting written independently of ShapeRules: right-align; at each position every size other
     * than 1 must agree; the result is that size, or 1. Null when the shapes do not broadcast.
     */
    static int[] referenceBroadcast(int[]... shapes) {
        int rank = 0;
        for (int[] d : shapes) {
            rank = Math.max(rank, d.length);
        }
        int[] out = new int[rank];
        for (int pos = 0; pos < rank; pos++) {
            int agreed = -1;
            for (int[] d : shapes) {
                int i = d.length - rank + pos;
                int size = i < 0 ? 1 : d[i];
                if (size == 1) {
                    continue;
                }
                if (agreed >= 0 && agreed != size) {
                    return null;
                }
                agreed = size;
            }
            out[pos] = agreed < 0 ? 1 : agreed;
        }
        return out;
    }
}
