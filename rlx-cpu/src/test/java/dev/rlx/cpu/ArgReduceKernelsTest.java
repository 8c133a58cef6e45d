package dev.rlx.cpu;

import dev.rlx.testkit.reference.AxisRef;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Arg-max and arg-min against a plain-loop reference; indices are exact, so results must match exactly. */
class ArgReduceKernelsTest {
    private final Random rnd = new Random(7);

    /** First index of the extreme along {@code axis}; NaN counts as the extreme, the first NaN winning. */
    static double[] reference(Ref x, int axis, boolean largest) {
        int[][] lines = AxisRef.lines(x.dims(), axis);
        double[] out = new double[lines.length];
        for (int l = 0; l < lines.length; l++) {
            int at = 0;
            double best = x.data()[lines[l][0]];
            for (int j = 1; j < lines[l].length && !Double.isNaN(best); j++) {
                double v = x.data()[lines[l][j]];
                if (Double.isNaN(v) || (largest ? v > best : v < best)) {
                    best = v;
                    at = j;
                }
            }
            out[l] = at;
        }
        return out;
    }

    private static double[] run(DType t, Ref x, int axis, boolean largest, boolean keep, int[] expectDims) {
        Graph g = new Graph("arg");
        Value in = g.input("x", Shape.of(t, x.dims()));
        Value y = largest ? g.argMax(in, axis, keep) : g.argMin(in, axis, keep);
        assertArrayEquals(expectDims, y.shape().dims(), "output dims");
        g.setOutputs(y);
        return Runner.run(g, Map.of("x", x)).get(0);
    }

    private static void check(DType t, Ref x, int axis, boolean keep, int[] expectDims) {
        int a = axis < 0 ? axis + x.rank() : axis;
        for (boolean largest : new boolean[] {true, false}) {
            assertArrayEquals(reference(x, a, largest), run(t, x, axis, largest, keep, expectDims),
                    (largest ? "argmax " : "argmin ") + t + " axis " + axis);
        }
    }

    @Test
    void argMax_lastAxis() {
        check(DType.F32, Ref.random(rnd, -1, 1, 5, 77), -1, false, new int[] {5});
    }

    @Test
    void argMax_nonLastAxisKeepDims() {
        Ref x = Ref.random(rnd, -1, 1, 4, 9, 6);
        check(DType.F32, x, 1, true, new int[] {4, 1, 6});
        check(DType.F32, x, 0, false, new int[] {9, 6});
    }

    @Test
    void argMax_tiesGoToFirst() {
        Ref x = Ref.randomInts(rnd, 0, 3, 6, 40); // many repeats of the extremes
        check(DType.F32, x, 1, false, new int[] {6});
        check(DType.F32, x, 0, false, new int[] {40});
        check(DType.I32, x, 1, false, new int[] {6});
    }

    @Test
    void argMax_nanCountsAsExtreme() {
        Ref x = Ref.random(rnd, -1, 1, 3, 50);
        x.set(Double.NaN, 0, 20); // inside the vector loop
        x.set(Double.NaN, 0, 30); // a later NaN loses to the first
        x.set(Double.NaN, 1, 49); // in the tail
        check(DType.F32, x, 1, false, new int[] {3});
        check(DType.F32, x, 0, false, new int[] {50});
        check(DType.F64, x, 1, false, new int[] {3});
    }

    @Test
    void argMax_sizeOneAxis() {
        check(DType.F32, Ref.random(rnd, -1, 1, 3, 1, 4), 1, false, new int[] {3, 4});
    }

    @Test
    void argMax_otherDtypes() {
        Ref x = Ref.random(rnd, -1, 1, 7, 13);
        check(DType.F64, x, 1, false, new int[] {7});
        check(DType.F16, x.map(AxisRef::f16), 0, true, new int[] {1, 13});
        check(DType.BF16, x.map(AxisRef::bf16), 1, false, new int[] {7});
        Ref ints = Ref.randomInts(rnd, -1000, 1000, 7, 13);
        check(DType.I64, ints, 1, false, new int[] {7});
        check(DType.I8, Ref.randomInts(rnd, -128, 128, 7, 13), 0, false, new int[] {13});
        check(DType.U8, Ref.randomInts(rnd, 0, 256, 7, 13), 1, false, new int[] {7});
    }

    @Test
    void argMax_i64ExtremesDoNotOverflow() {
        Ref x = Ref.zeros(1, 4);
        x.data()[0] = 5;
        x.data()[1] = Long.MIN_VALUE; // argmin flips bits rather than negating, which would overflow here
        x.data()[2] = -5;
        x.data()[3] = 7;
        check(DType.I64, x, 1, false, new int[] {1});
    }

    @Test
    void argMax_largeRows() {
        check(DType.F32, Ref.random(rnd, -1, 1, 256, 4096), 1, false, new int[] {256});
    }
}
