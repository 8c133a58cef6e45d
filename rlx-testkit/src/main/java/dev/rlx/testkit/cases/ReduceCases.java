package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.dims;
import static dev.rlx.testkit.cases.Shapes.f32;
import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.ReduceKind;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reduce over axis sets: last, first, middle and non-contiguous axes, all axes, negative axes, size-1 and empty
 * dims, NaN, long rows and columns that take blocked summation and the parallel path, every numeric dtype.
 *
 * <p>Tolerances: f32 inputs are exact, so the errors are the summation order and the final rounding; sums of up to
 * ~1000 values in [-1, 1) stay within 1e-5 absolute plus 1e-5 relative. MAX and MIN select an element: exact.
 * F16/BF16 allow one rounding of the result plus accumulated f32 rounding.
 */
final class ReduceCases {
    private ReduceCases() {}

    static final Tolerance SUMS = Tolerance.of(1e-5, 1e-5, "f32 sums of up to ~1000 values of order 1 in another order");
    static final Tolerance EXACT = Tolerance.exact("selected, or a single element, or an identity: exact");

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {7, 1000}, Data.standard(), SUMS, -1));
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {4, 5, 6}, Data.standard(), SUMS, 0, 2));
        c.add(reduce(ReduceKind.SUM, DType.F32, true, new int[] {4, 5, 6}, Data.standard(), SUMS, 0, 2));
        for (ReduceKind k : ReduceKind.values()) {
            Tolerance tol = selects(k) ? EXACT : SUMS;
            Data positive = Data.uniform(0.5, 1.5);
            c.add(reduce(k, DType.F32, false, new int[] {3, 4, 5, 19}, positive, tol, 0, 2));
            c.add(reduce(k, DType.F32, true, new int[] {3, 4, 5, 19}, positive, tol, 1, 3));
            // keeping the last axis: vectors across outputs (19 leaves a masked tail), or scalar for 3 columns
            c.add(reduce(k, DType.F32, false, new int[] {37, 19}, positive, tol, 0));
            c.add(reduce(k, DType.F32, false, new int[] {37, 3}, positive, tol, 0));
            c.add(reduce(k, DType.F64, false, new int[] {5, 6, 7}, positive, Tolerance.of(1e-12, 1e-12, "double"), 0, 2));
            c.add(reduce(k, DType.F64, false, new int[] {5, 6, 7}, positive, Tolerance.of(1e-12, 1e-12, "double"), -1));
        }
        c.add(reduce(ReduceKind.MEAN, DType.F32, true, new int[] {3, 4, 5, 6}, Data.standard(), SUMS, 1, 2));
        // 65536 values per column: two levels of blocks keep the error near 1e-6 relative where one float chain drifts ~1e-4
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {1 << 16, 24}, Data.uniform(0.5, 1.5),
                Tolerance.of(0, 2e-6, "65536-term column sums need blocked summation"), 0));
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {3, 4, 5}, Data.standard(), SUMS, -1, -3));
        c.add(reduce(ReduceKind.MAX, DType.F32, true, new int[] {3, 4, 5}, Data.standard(), EXACT, -2));
        c.add(reduce(ReduceKind.MIN, DType.F32, false, new int[] {6, 7, 8}, Data.standard(), EXACT));
        c.add(reduce(ReduceKind.MEAN, DType.F32, true, new int[] {6, 7, 8}, Data.standard(), SUMS));
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {1, 5, 1, 3}, Data.standard(), SUMS, 0, 2));
        c.add(reduce(ReduceKind.PROD, DType.F32, true, new int[] {1, 5, 1, 3}, Data.standard(), SUMS, 1));
        c.add(reduce(ReduceKind.MAX, DType.F32, false, new int[] {1, 5, 1, 3}, Data.standard(), EXACT, 2));
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {4, 1}, Data.standard(), EXACT, 1));
        empty(c);
        nan(c);
        large(c);
        halves(c);
        integers(c);
        c.add(OpCase.named("reduce_sum_f32_transposedOperand_13x29")
                .graph(g -> g.setOutputs(g.reduceSum(g.transpose(g.input("x", f32(13, 29)), 1, 0), false, 1)))
                .tolerance(DType.F32, SUMS)
                .build());
        c.add(OpCase.named("reduce_max_f32_slicedOperand")
                .graph(g -> g.setOutputs(g.reduceMax(g.slice(g.input("x", f32(6, 50)), 1, 3, 23, 2), false, 1)))
                .tolerance(DType.F32, EXACT)
                .build());
        c.add(OpCase.named("reduce_sum_c64_complexValuesAddPartwise")
                .graph(g -> g.setOutputs(g.reduceSum(g.input("x", of(DType.C64, 3, 4)), false, 1)))
                .build());
        return new OpFamily("reduce", c);
    }

    private static boolean selects(ReduceKind k) {
        return k == ReduceKind.MAX || k == ReduceKind.MIN;
    }

    static OpCase reduce(ReduceKind k, DType t, boolean keep, int[] d, Data data, Tolerance tol, int... axes) {
        return reduce("", k, t, keep, d, data, tol, axes);
    }

    /** {@code reduce_sum_f32_4x5x6_axes[0,2]_keepDims} plus {@code suffix}. */
    static OpCase reduce(String suffix, ReduceKind k, DType t, boolean keep, int[] d, Data data, Tolerance tol,
                         int... axes) {
        String name = "reduce_" + k.label() + "_" + t(t) + "_" + dims(d) + "_axes" + Arrays.toString(axes).replace(" ", "")
                + (keep ? "_keepDims" : "") + suffix;
        OpCase.Builder b = OpCase.named(name)
                .graph(g -> g.setOutputs(g.reduce(k, g.input("x", of(t, d)), keep, axes)))
                .data("x", data);
        return (t.isFloat() ? b.tolerance(t, tol) : b).build();
    }

    /** Over zero elements: SUM 0, PROD 1, MAX -inf (integer minimum), MIN +inf (integer maximum), MEAN NaN. */
    private static void empty(List<OpCase> c) {
        for (ReduceKind k : ReduceKind.values()) {
            c.add(reduce(k, DType.F32, k == ReduceKind.MEAN, new int[] {3, 0, 2}, Data.standard(), EXACT, 1));
            c.add(reduce(k, DType.F32, false, new int[] {0, 20}, Data.standard(), EXACT, 0)); // the column loop over no rows
        }
        c.add(reduce(ReduceKind.MAX, DType.I32, false, new int[] {3, 0, 2}, Data.standard(), EXACT, 1));
        c.add(reduce(ReduceKind.MIN, DType.U8, false, new int[] {3, 0, 2}, Data.standard(), EXACT, 1));
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {0, 4}, Data.standard(), EXACT, 1));
    }

    /** NaN inside the vector loop, in the scalar tail, and in the strided (first-axis) path. */
    private static void nan(List<OpCase> c) {
        Data withNaN = Data.standard().with(Double.NaN, 3, 199, 350);
        for (ReduceKind k : new ReduceKind[] {ReduceKind.MAX, ReduceKind.MIN, ReduceKind.SUM}) {
            Tolerance tol = selects(k) ? EXACT : SUMS;
            c.add(reduce("_nanPropagates", k, DType.F32, false, new int[] {4, 100}, withNaN, tol, 1));
            c.add(reduce("_nanPropagates", k, DType.F32, false, new int[] {4, 100}, withNaN, tol, 0));
        }
    }

    private static void large(List<OpCase> c) {
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {1024, 1024}, Data.standard(),
                Tolerance.of(1e-4, 1e-5, "1024-term f32 sums of values in [-1, 1)"), 1));
        c.add(reduce(ReduceKind.MAX, DType.F32, false, new int[] {1024, 1024}, Data.standard(), EXACT, 0));
        c.add(reduce(ReduceKind.MEAN, DType.F32, false, new int[] {1024, 1024}, Data.standard(), SUMS, 0));
        // a million positive values to one number: blocked summation keeps the relative error near one block's rounding
        Tolerance million = Tolerance.of(0, 1e-6, "2^20 positive terms need blocked summation");
        c.add(reduce(ReduceKind.SUM, DType.F32, false, new int[] {1 << 20}, Data.uniform(0.5, 1.5), million));
        c.add(reduce(ReduceKind.MEAN, DType.F32, false, new int[] {1 << 20}, Data.uniform(0.5, 1.5), million));
    }

    private static void halves(List<OpCase> c) {
        // one rounding of a result of magnitude <= ~10 on top of exact half inputs
        c.add(reduce(ReduceKind.SUM, DType.F16, false, new int[] {6, 40}, Data.standard(),
                Tolerance.of(1e-2, 1e-3, "one f16 rounding of a sum of magnitude up to ~10"), 1));
        c.add(reduce(ReduceKind.MAX, DType.F16, false, new int[] {6, 40}, Data.standard(), EXACT, 0));
        c.add(reduce(ReduceKind.MEAN, DType.BF16, false, new int[] {6, 40}, Data.standard(),
                Tolerance.of(1e-2, 8e-3, "one bf16 rounding of the mean"), 1));
        c.add(reduce(ReduceKind.MIN, DType.BF16, true, new int[] {6, 40}, Data.standard(), EXACT, 1));
        c.add(reduce(ReduceKind.PROD, DType.F16, false, new int[] {5, 7}, Data.uniform(0.5, 1.5),
                Tolerance.of(1e-3, 1e-3, "one f16 rounding"), 1));
        c.add(reduce(ReduceKind.SUM, DType.BF16, true, new int[] {9, 33}, Data.standard(),
                Tolerance.of(1e-2, 8e-3, "one bf16 rounding"), 0));
    }

    private static void integers(List<OpCase> c) {
        for (ReduceKind k : new ReduceKind[] {ReduceKind.SUM, ReduceKind.MAX, ReduceKind.MIN, ReduceKind.PROD}) {
            Data small = Data.ints(-50, 50);
            c.add(reduce(k, DType.I32, false, new int[] {4, 5, 6}, small, EXACT, 0, 2));
            c.add(reduce(k, DType.I64, true, new int[] {4, 5, 6}, small, EXACT, 2));
            for (DType t : new DType[] {DType.I8, DType.I16, DType.U8, DType.U32}) {
                c.add(reduce(k, t, false, new int[] {5, 9}, Data.uniform(-100, 200), EXACT, 1));
            }
        }
        c.add(OpCase.named("reduce_sum_i32_wraps")
                .graph(g -> g.setOutputs(g.reduceSum(g.input("x", of(DType.I32, 2, 3)), false, 1)))
                .data("x", Data.longs(Integer.MAX_VALUE, Integer.MAX_VALUE - 1, Integer.MAX_VALUE - 2,
                        Integer.MAX_VALUE - 3, Integer.MAX_VALUE - 4, Integer.MAX_VALUE - 5))
                .build());
        c.add(reduce("_unsignedValues", ReduceKind.MAX, DType.U8, false, new int[] {3, 9}, Data.ints(0, 256), EXACT, 1));
    }
}
