package dev.rlx.cpu;

import dev.rlx.testkit.reference.AxisRef;
import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.ReduceKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Reduce against a float64 reference in plain loops.
 *
 * <p>Tolerances: f32 inputs are exact floats, so the only errors are the kernel's summation order (float
 * lanes within blocks of 1024, block sums in double: a few ulps of the block partials) and the final
 * rounding to f32 (rtol 6e-8). Sums of up to ~1000 values in [-1, 1) (magnitude ~20) stay within atol 1e-5
 * plus rtol 1e-5; MAX/MIN are exact. F64 is held to 1e-12. F16/BF16 references start from the rounded
 * inputs and allow one rounding of the result (2^-11, 2^-8) plus accumulated rounding.
 */
class ReduceKernelsTest {
    private static final double ATOL = 1e-5;
    private static final double RTOL = 1e-5;

    private final Random rnd = new Random(42);

    // ---------------------------------------------------------------- reference

    /** Reduces {@code x} over the axes flagged in {@code reduced}, in double (or long for integers). */
    static double[] reference(Ref x, ReduceKind k, boolean[] reduced, DType t) {
        int[] dims = x.dims();
        int outSize = 1;
        long count = 1;
        for (int d = 0; d < dims.length; d++) {
            if (reduced[d]) {
                count *= dims[d];
            } else {
                outSize *= dims[d];
            }
        }
        boolean integral = t.isInteger();
        double[] acc = new double[outSize];
        long[] lacc = new long[outSize];
        for (int o = 0; o < outSize; o++) {
            acc[o] = switch (k) {
                case SUM, MEAN -> 0;
                case PROD -> 1;
                case MAX -> Double.NEGATIVE_INFINITY;
                case MIN -> Double.POSITIVE_INFINITY;
            };
            lacc[o] = switch (k) {
                case SUM, MEAN -> 0;
                case PROD -> 1;
                case MAX -> t == DType.I32 ? Integer.MIN_VALUE : Long.MIN_VALUE;
                case MIN -> t == DType.I32 ? Integer.MAX_VALUE : Long.MAX_VALUE;
            };
        }
        int[] idx = new int[dims.length]; // odometer over x, row-major
        for (int flat = 0; flat < x.size(); flat++) {
            if (flat > 0) {
                for (int d = dims.length - 1; ++idx[d] == dims[d]; d--) {
                    idx[d] = 0;
                }
            }
            int o = 0;
            for (int d = 0; d < dims.length; d++) {
                if (!reduced[d]) {
                    o = o * dims[d] + idx[d];
                }
            }
            double v = x.data()[flat];
            long lv = (long) v;
            switch (k) {
                case SUM, MEAN -> { acc[o] += v; lacc[o] += lv; }
                case PROD -> { acc[o] *= v; lacc[o] *= lv; }
                case MAX -> { acc[o] = Math.max(acc[o], v); lacc[o] = Math.max(lacc[o], lv); }
                case MIN -> { acc[o] = Math.min(acc[o], v); lacc[o] = Math.min(lacc[o], lv); }
            }
        }
        for (int o = 0; o < outSize; o++) {
            if (integral) {
                acc[o] = t == DType.I32 ? (int) lacc[o] : lacc[o]; // integer results wrap to the width
            } else if (k == ReduceKind.MEAN) {
                acc[o] /= count;
            }
        }
        return acc;
    }

    private static boolean[] flags(int rank, int... axes) {
        boolean[] r = new boolean[rank];
        if (axes.length == 0) {
            java.util.Arrays.fill(r, true);
        }
        for (int a : axes) {
            r[a < 0 ? a + rank : a] = true;
        }
        return r;
    }

    /** Runs reduce on the CPU backend, checks the output dims, and returns the values. */
    private static double[] run(DType t, Ref x, ReduceKind k, boolean keep, int[] expectDims, int... axes) {
        Graph g = new Graph("reduce");
        Value in = g.input("x", Shape.of(t, x.dims()));
        Value y = g.reduce(k, in, keep, axes);
        assertArrayEquals(expectDims, y.shape().dims(), "output dims");
        g.setOutputs(y);
        return Runner.run(g, Map.of("x", x)).get(0);
    }

    private void check(DType t, Ref x, ReduceKind k, boolean keep, int[] expectDims, double atol, double rtol,
                       int... axes) {
        double[] got = run(t, x, k, keep, expectDims, axes);
        assertClose(reference(x, k, flags(x.rank(), axes), t), got, atol, rtol, k + " " + t + " axes "
                + java.util.Arrays.toString(axes));
    }

    // ---------------------------------------------------------------- f32 layouts

    @Test
    void reduceSum_lastAxis() {
        Ref x = Ref.random(rnd, -1, 1, 7, 1000);
        check(DType.F32, x, ReduceKind.SUM, false, new int[] {7}, ATOL, RTOL, -1);
    }

    @Test
    void reduceSum_nonContiguousAxes() {
        Ref x = Ref.random(rnd, -1, 1, 4, 5, 6);
        check(DType.F32, x, ReduceKind.SUM, false, new int[] {5}, ATOL, RTOL, 0, 2);
        check(DType.F32, x, ReduceKind.SUM, true, new int[] {1, 5, 1}, ATOL, RTOL, 0, 2);
    }

    @Test
    void reduce_allKinds_nonContiguousAxesRank4() {
        Ref x = Ref.random(rnd, 0.5, 1.5, 3, 4, 5, 19);
        for (ReduceKind k : ReduceKind.values()) {
            check(DType.F32, x, k, false, new int[] {4, 19}, ATOL, RTOL, 0, 2);
            check(DType.F32, x, k, true, new int[] {3, 1, 5, 1}, ATOL, RTOL, 1, 3);
        }
    }

    @Test
    void reduceMean_middleAxesMerge() {
        Ref x = Ref.random(rnd, -1, 1, 3, 4, 5, 6);
        check(DType.F32, x, ReduceKind.MEAN, true, new int[] {3, 1, 1, 6}, ATOL, RTOL, 1, 2);
    }

    /** Keeping the last axis: vectors across outputs (19 leaves a masked tail), or scalar for 3 columns. */
    @Test
    void reduce_firstAxisKeepsLast() {
        for (int cols : new int[] {19, 3}) {
            Ref x = Ref.random(rnd, 0.5, 1.5, 37, cols);
            for (ReduceKind k : ReduceKind.values()) {
                check(DType.F32, x, k, false, new int[] {cols}, ATOL, RTOL, 0);
            }
        }
    }

    /**
     * 65536 positive values per column: the column loop's two levels of float blocks stay near 1e-6
     * relative, where one float chain that long drifts by ~1e-4.
     */
    @Test
    void reduceSum_longColumnsAreAccurate() {
        Ref x = Ref.random(rnd, 0.5, 1.5, 1 << 16, 24);
        check(DType.F32, x, ReduceKind.SUM, false, new int[] {24}, 0, 2e-6, 0);
    }

    @Test
    void reduce_negativeAxes() {
        Ref x = Ref.random(rnd, -1, 1, 3, 4, 5);
        check(DType.F32, x, ReduceKind.SUM, false, new int[] {4}, ATOL, RTOL, -1, -3);
        check(DType.F32, x, ReduceKind.MAX, true, new int[] {3, 1, 5}, 0, 0, -2);
    }

    @Test
    void reduce_allAxesToScalar() {
        Ref x = Ref.random(rnd, -1, 1, 6, 7, 8);
        check(DType.F32, x, ReduceKind.MIN, false, new int[] {}, 0, 0);
        check(DType.F32, x, ReduceKind.MEAN, true, new int[] {1, 1, 1}, ATOL, RTOL);
    }

    @Test
    void reduce_sizeOneDims() {
        Ref x = Ref.random(rnd, -1, 1, 1, 5, 1, 3);
        check(DType.F32, x, ReduceKind.SUM, false, new int[] {5, 3}, ATOL, RTOL, 0, 2);
        check(DType.F32, x, ReduceKind.PROD, true, new int[] {1, 1, 1, 3}, ATOL, RTOL, 1);
        check(DType.F32, x, ReduceKind.MAX, false, new int[] {1, 5, 3}, 0, 0, 2);
    }

    @Test
    void reduce_emptyReducedAxisGivesIdentity() {
        Ref x = Ref.random(rnd, -1, 1, 3, 0, 2);
        double inf = Double.POSITIVE_INFINITY;
        double[] sum = run(DType.F32, x, ReduceKind.SUM, false, new int[] {3, 2}, 1);
        assertArrayEquals(new double[] {0, 0, 0, 0, 0, 0}, sum);
        assertArrayEquals(new double[] {1, 1, 1, 1, 1, 1}, run(DType.F32, x, ReduceKind.PROD, false, new int[] {3, 2}, 1));
        assertArrayEquals(new double[] {-inf, -inf, -inf, -inf, -inf, -inf},
                run(DType.F32, x, ReduceKind.MAX, false, new int[] {3, 2}, 1));
        assertArrayEquals(new double[] {inf, inf, inf, inf, inf, inf},
                run(DType.F32, x, ReduceKind.MIN, false, new int[] {3, 2}, 1));
        for (double v : run(DType.F32, x, ReduceKind.MEAN, true, new int[] {3, 1, 2}, 1)) {
            assertEquals(Double.NaN, v);
        }
        // the column loop (last axis kept, 20 wide) over no rows
        Ref none = Ref.random(rnd, -1, 1, 0, 20);
        assertArrayEquals(new double[20], run(DType.F32, none, ReduceKind.SUM, false, new int[] {20}, 0));
        assertEquals(Double.NaN, run(DType.F32, none, ReduceKind.MEAN, false, new int[] {20}, 0)[19]);
        assertEquals(-inf, run(DType.F32, none, ReduceKind.MAX, false, new int[] {20}, 0)[19]);
        assertEquals(inf, run(DType.F32, none, ReduceKind.MIN, false, new int[] {20}, 0)[0]);
        // integer MAX/MIN over nothing give the type's extremes
        assertArrayEquals(new double[] {Integer.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE,
                Integer.MIN_VALUE, Integer.MIN_VALUE}, run(DType.I32, x, ReduceKind.MAX, false, new int[] {3, 2}, 1));
        assertArrayEquals(new double[] {255, 255, 255, 255, 255, 255},
                run(DType.U8, x, ReduceKind.MIN, false, new int[] {3, 2}, 1));
    }

    @Test
    void reduce_emptyKeptDim() {
        Ref x = Ref.random(rnd, -1, 1, 0, 4);
        assertEquals(0, run(DType.F32, x, ReduceKind.SUM, false, new int[] {0}, 1).length);
    }

    @Test
    void reduce_sizeOneAxisCopies() {
        Ref x = Ref.random(rnd, -1, 1, 4, 1);
        check(DType.F32, x, ReduceKind.SUM, false, new int[] {4}, 0, 0, 1);
    }

    // ---------------------------------------------------------------- NaN

    @Test
    void reduceMax_nanPropagates() {
        Ref x = Ref.random(rnd, -1, 1, 4, 100);
        x.set(Double.NaN, 0, 3);   // inside the vector loop
        x.set(Double.NaN, 1, 99);  // in the scalar tail
        x.set(Double.NaN, 3, 50);
        for (ReduceKind k : new ReduceKind[] {ReduceKind.MAX, ReduceKind.MIN, ReduceKind.SUM}) {
            double[] got = run(DType.F32, x, k, false, new int[] {4}, 1);
            assertEquals(Double.NaN, got[0], k + " row 0");
            assertEquals(Double.NaN, got[1], k + " row 1");
            assertEquals(false, Double.isNaN(got[2]), k + " row 2");
            assertEquals(Double.NaN, got[3], k + " row 3");
            // the strided path (reducing the first axis) propagates too
            double[] cols = run(DType.F32, x, k, false, new int[] {100}, 0);
            assertEquals(Double.NaN, cols[3], k + " column 3");
            assertEquals(Double.NaN, cols[99], k + " column 99");
            assertEquals(false, Double.isNaN(cols[4]), k + " column 4");
        }
    }

    // ---------------------------------------------------------------- large (parallel path)

    @Test
    void reduceSum_largeRowsAndColumns() {
        Ref x = Ref.random(rnd, -1, 1, 1024, 1024);
        check(DType.F32, x, ReduceKind.SUM, false, new int[] {1024}, ATOL * 10, RTOL, 1);
        check(DType.F32, x, ReduceKind.MAX, false, new int[] {1024}, 0, 0, 0);
        check(DType.F32, x, ReduceKind.MEAN, false, new int[] {1024}, ATOL, RTOL, 0);
    }

    /**
     * A million positive values summed to one number (~1e6): blocked summation keeps the relative error near
     * the block's rounding, far below the 1e-6 a plain float accumulator would miss by.
     */
    @Test
    void reduceSum_millionElementsIsAccurate() {
        Ref x = Ref.random(rnd, 0.5, 1.5, 1 << 20);
        check(DType.F32, x, ReduceKind.SUM, false, new int[] {}, 0, 1e-6);
        check(DType.F32, x, ReduceKind.MEAN, false, new int[] {}, 0, 1e-6);
    }

    // ---------------------------------------------------------------- other dtypes

    @Test
    void reduce_f64AllKinds() {
        Ref x = Ref.random(rnd, 0.5, 1.5, 5, 6, 7);
        for (ReduceKind k : ReduceKind.values()) {
            check(DType.F64, x, k, false, new int[] {6}, 1e-12, 1e-12, 0, 2);
            check(DType.F64, x, k, false, new int[] {5, 6}, 1e-12, 1e-12, -1);
        }
    }

    @Test
    void reduce_f16AndBf16() {
        Ref x = Ref.random(rnd, -1, 1, 6, 40);
        Ref x16 = x.map(AxisRef::f16);
        Ref xb16 = x.map(AxisRef::bf16);
        // one rounding of a result of magnitude <= ~10, plus the inputs' rounding already in the reference
        check(DType.F16, x16, ReduceKind.SUM, false, new int[] {6}, 1e-2, 1e-3, 1);
        check(DType.F16, x16, ReduceKind.MAX, false, new int[] {40}, 0, 0, 0);
        check(DType.BF16, xb16, ReduceKind.MEAN, false, new int[] {6}, 1e-2, 8e-3, 1);
        check(DType.BF16, xb16, ReduceKind.MIN, true, new int[] {6, 1}, 0, 0, 1);
    }

    @Test
    void reduce_integersAllKinds() {
        Ref x = Ref.randomInts(rnd, -50, 50, 4, 5, 6);
        for (ReduceKind k : new ReduceKind[] {ReduceKind.SUM, ReduceKind.MAX, ReduceKind.MIN, ReduceKind.PROD}) {
            check(DType.I32, x, k, false, new int[] {5}, 0, 0, 0, 2);
            check(DType.I64, x, k, true, new int[] {4, 5, 1}, 0, 0, 2);
        }
    }

    @Test
    void reduceSum_i32Wraps() {
        Ref x = Ref.zeros(2, 3);
        for (int i = 0; i < x.size(); i++) {
            x.data()[i] = Integer.MAX_VALUE - i; // the sum overflows int; the result wraps like Java int
        }
        check(DType.I32, x, ReduceKind.SUM, false, new int[] {2}, 0, 0, 1);
    }

    @Test
    void reduce_complexIsRejectedAtCompile() {
        Graph g = new Graph("reduce");
        Value in = g.input("x", Shape.of(DType.C64, 3, 4));
        g.setOutputs(g.name(g.reduceSum(in, false, 1), "total"));
        try (Session s = new Session(Device.CPU)) {
            CompileException e = assertThrows(CompileException.class, () -> s.compile(g));
            assertTrue(e.getMessage().contains("reduce_sum 'total' has no kernel for c64"), e.getMessage());
        }
    }

    @Test
    void reduce_u8UsesUnsignedValues() {
        Ref x = Ref.randomInts(rnd, 0, 256, 3, 9);
        double[] max = run(DType.U8, x, ReduceKind.MAX, false, new int[] {3}, 1);
        for (int r = 0; r < 3; r++) {
            double m = 0;
            for (int j = 0; j < 9; j++) {
                m = Math.max(m, x.at(r, j));
            }
            assertEquals(m, max[r]);
        }
    }
}
