package dev.rlx.cpu;

import dev.rlx.testkit.reference.AxisRef;
import static dev.rlx.testkit.Close.assertClose;

import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Cumsum against a double reference. The kernel sums floats in double and rounds each prefix once, so f32
 * results are within one rounding (rtol 1e-7) of the reference; atol 1e-6 covers prefixes that cancel to
 * near zero. Integers are exact and wrap.
 */
class CumsumKernelsTest {
    private final Random rnd = new Random(11);

    static double[] reference(Ref x, int axis, boolean exclusive, boolean reverse, DType t) {
        double[] out = new double[x.size()];
        for (int[] line : AxisRef.lines(x.dims(), axis)) {
            double acc = 0;
            long lacc = 0;
            for (int i = 0; i < line.length; i++) {
                int p = line[reverse ? line.length - 1 - i : i];
                double before = t == DType.I32 ? (int) lacc : acc;
                acc += x.data()[p];
                lacc += (long) x.data()[p];
                double after = t == DType.I32 ? (int) lacc : acc;
                out[p] = exclusive ? before : after;
            }
        }
        return out;
    }

    private static void check(DType t, Ref x, int axis, double atol, double rtol) {
        int a = axis < 0 ? axis + x.rank() : axis;
        for (boolean exclusive : new boolean[] {false, true}) {
            for (boolean reverse : new boolean[] {false, true}) {
                Graph g = new Graph("cumsum");
                Value in = g.input("x", Shape.of(t, x.dims()));
                g.setOutputs(g.cumsum(in, axis, exclusive, reverse));
                double[] got = Runner.run(g, Map.of("x", x)).get(0);
                assertClose(reference(x, a, exclusive, reverse, t), got, atol, rtol,
                        "cumsum " + t + " axis " + axis + (exclusive ? " exclusive" : "") + (reverse ? " reverse" : ""));
            }
        }
    }

    @Test
    void cumsum_lastAxis() {
        check(DType.F32, Ref.random(rnd, -1, 1, 4, 100), -1, 1e-6, 1e-7);
    }

    @Test
    void cumsum_nonLastAxis() {
        Ref x = Ref.random(rnd, -1, 1, 3, 4, 5);
        check(DType.F32, x, 1, 1e-6, 1e-7);
        check(DType.F32, x, 0, 1e-6, 1e-7);
        check(DType.F32, x, -2, 1e-6, 1e-7);
    }

    @Test
    void cumsum_sizeOneAndEmptyAxes() {
        check(DType.F32, Ref.random(rnd, -1, 1, 3, 1, 2), 1, 0, 0);
        check(DType.F32, Ref.random(rnd, -1, 1, 3, 0, 2), 1, 0, 0);
        check(DType.F32, Ref.random(rnd, -1, 1, 0, 5), 1, 0, 0);
    }

    @Test
    void cumsum_f64AndF16() {
        Ref x = Ref.random(rnd, -1, 1, 6, 30);
        check(DType.F64, x, 1, 1e-12, 1e-12);
        // each f16 prefix is rounded once from the exact sum of the (rounded) inputs: 2^-11 relative
        check(DType.F16, x.map(AxisRef::f16), 1, 1e-3, 1e-3);
    }

    @Test
    void cumsum_integersWrap() {
        check(DType.I64, Ref.randomInts(rnd, -100, 100, 5, 20), 1, 0, 0);
        Ref big = Ref.zeros(2, 4);
        for (int i = 0; i < big.size(); i++) {
            big.data()[i] = Integer.MAX_VALUE - 3 * i;
        }
        check(DType.I32, big, 1, 0, 0);
    }

    @Test
    void cumsum_large() {
        check(DType.F32, Ref.random(rnd, -1, 1, 512, 2048), 1, 1e-5, 1e-7);
    }
}
