package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.dims;
import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.Value;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * The ops along one axis that select or accumulate: arg-max/min (ties to the first, NaN the extreme), cumsum
 * (inclusive, exclusive, reversed; integers wrap) and top-k (sorted, ties to the smaller index, NaN first).
 * Selections are exact; cumsum rounds each f32 prefix once.
 */
final class AxisCases {
    private AxisCases() {}

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        argReduce(c);
        cumsum(c);
        topK(c);
        return new OpFamily("axis", c);
    }

    // ---------------------------------------------------------------- arg-reduce

    /** argmax and argmin of one input along {@code axis}, as two outputs. */
    private static OpCase arg(String suffix, DType t, int[] d, int axis, boolean keep, Data data) {
        return OpCase.named("argmaxArgmin_" + t(t) + "_" + dims(d) + "_axis" + axis + (keep ? "_keepDims" : "") + suffix)
                .graph(g -> {
                    Value x = g.input("x", of(t, d));
                    g.setOutputs(g.argMax(x, axis, keep), g.argMin(x, axis, keep));
                })
                .data("x", data)
                .build();
    }

    private static void argReduce(List<OpCase> c) {
        c.add(arg("", DType.F32, new int[] {5, 77}, -1, false, Data.standard()));
        c.add(arg("", DType.F32, new int[] {4, 9, 6}, 1, true, Data.standard()));
        c.add(arg("", DType.F32, new int[] {4, 9, 6}, 0, false, Data.standard()));
        Data ties = Data.ints(0, 3); // many repeats of the extremes
        c.add(arg("_tiesGoToFirst", DType.F32, new int[] {6, 40}, 1, false, ties));
        c.add(arg("_tiesGoToFirst", DType.F32, new int[] {6, 40}, 0, false, ties));
        c.add(arg("_tiesGoToFirst", DType.I32, new int[] {6, 40}, 1, false, ties));
        // NaN inside the vector loop, a later NaN losing to the first, NaN in the tail
        Data nan = Data.standard().with(Double.NaN, 20, 30, 99);
        c.add(arg("_nanIsTheExtreme", DType.F32, new int[] {3, 50}, 1, false, nan));
        c.add(arg("_nanIsTheExtreme", DType.F32, new int[] {3, 50}, 0, false, nan));
        c.add(arg("_nanIsTheExtreme", DType.F64, new int[] {3, 50}, 1, false, nan));
        c.add(arg("", DType.F32, new int[] {3, 1, 4}, 1, false, Data.standard()));
        c.add(arg("", DType.F64, new int[] {7, 13}, 1, false, Data.standard()));
        c.add(arg("", DType.F16, new int[] {7, 13}, 0, true, Data.standard()));
        c.add(arg("", DType.BF16, new int[] {7, 13}, 1, false, Data.standard()));
        c.add(arg("", DType.I64, new int[] {7, 13}, 1, false, Data.ints(-1000, 1000)));
        c.add(arg("", DType.I8, new int[] {7, 13}, 0, false, Data.ints(-128, 128)));
        c.add(arg("", DType.U8, new int[] {7, 13}, 1, false, Data.ints(0, 256)));
        c.add(arg("", DType.I16, new int[] {7, 13}, 1, false, Data.ints(-3000, 3000)));
        c.add(arg("", DType.U32, new int[] {7, 13}, 0, false, Data.ints(0, 4_000_000_000L)));
        // argmin flips bits rather than negating, which would overflow at the minimum
        c.add(arg("_extremesDoNotOverflow", DType.I64, new int[] {1, 4}, 1, false, Data.longs(5, Long.MIN_VALUE, -5, 7)));
        c.add(arg("", DType.F32, new int[] {256, 4096}, 1, false, Data.standard()));
    }

    // ---------------------------------------------------------------- cumsum

    /** The four variants (inclusive/exclusive, forward/reverse) along {@code axis}, as four outputs. */
    private static OpCase cumsum(String suffix, DType t, int[] d, int axis, Data data, Tolerance tol) {
        OpCase.Builder b = OpCase.named("cumsum_" + t(t) + "_" + dims(d) + "_axis" + axis + suffix)
                .graph(g -> {
                    Value x = g.input("x", of(t, d));
                    g.setOutputs(g.cumsum(x, axis, false, false), g.cumsum(x, axis, true, false),
                            g.cumsum(x, axis, false, true), g.cumsum(x, axis, true, true));
                })
                .data("x", data);
        return (t.isFloat() ? b.tolerance(t, tol) : b).build();
    }

    private static void cumsum(List<OpCase> c) {
        // each prefix summed in double and rounded once: one rounding, plus prefixes that cancel to near zero
        Tolerance f32 = Tolerance.of(1e-6, 1e-7, "each prefix rounded once to f32");
        c.add(cumsum("", DType.F32, new int[] {4, 100}, -1, Data.standard(), f32));
        c.add(cumsum("", DType.F32, new int[] {3, 4, 5}, 1, Data.standard(), f32));
        c.add(cumsum("", DType.F32, new int[] {3, 4, 5}, 0, Data.standard(), f32));
        c.add(cumsum("", DType.F32, new int[] {3, 4, 5}, -2, Data.standard(), f32));
        Tolerance exact = Tolerance.exact("one term per prefix, or none");
        c.add(cumsum("", DType.F32, new int[] {3, 1, 2}, 1, Data.standard(), exact));
        c.add(cumsum("", DType.F32, new int[] {3, 0, 2}, 1, Data.standard(), exact));
        c.add(cumsum("", DType.F32, new int[] {0, 5}, 1, Data.standard(), exact));
        c.add(cumsum("", DType.F64, new int[] {6, 30}, 1, Data.standard(), Tolerance.of(1e-12, 1e-12, "double")));
        c.add(cumsum("", DType.F16, new int[] {6, 30}, 1, Data.standard(),
                Tolerance.of(1e-3, 1e-3, "each f16 prefix rounded once from the exact sum")));
        c.add(cumsum("", DType.BF16, new int[] {6, 30}, 0, Data.standard(),
                Tolerance.of(1e-2, 8e-3, "each bf16 prefix rounded once from the exact sum")));
        c.add(cumsum("", DType.I64, new int[] {5, 20}, 1, Data.ints(-100, 100), null));
        c.add(cumsum("_wraps", DType.I32, new int[] {2, 4}, 1, Data.longs(Integer.MAX_VALUE, Integer.MAX_VALUE - 3,
                Integer.MAX_VALUE - 6, Integer.MAX_VALUE - 9, Integer.MAX_VALUE - 12, Integer.MAX_VALUE - 15,
                Integer.MAX_VALUE - 18, Integer.MAX_VALUE - 21), null));
        for (DType t : new DType[] {DType.I8, DType.I16, DType.U8, DType.U32}) {
            c.add(cumsum("_wraps", t, new int[] {3, 17}, 1, Data.uniform(-100, 200), null));
        }
        c.add(cumsum("", DType.F32, new int[] {512, 2048}, 1, Data.standard(),
                Tolerance.of(1e-5, 1e-7, "each prefix of up to 2048 terms rounded once to f32")));
    }

    // ---------------------------------------------------------------- top-k

    private static OpCase topK(String suffix, DType t, int[] d, int k, int axis, boolean largest, Data data) {
        OpCase.Builder b = OpCase.named("topK_" + t(t) + "_" + dims(d) + "_k" + k + "_axis" + axis
                        + (largest ? "_largest" : "_smallest") + suffix)
                .graph(g -> g.setOutputs(g.topK(g.input("x", of(t, d)), k, axis, largest)))
                .data("x", data);
        return (t.isFloat() ? b.tolerance(t, Tolerance.exact("top-k copies the values it selects")) : b).build();
    }

    private static void topK(List<OpCase> c) {
        for (boolean largest : new boolean[] {true, false}) {
            c.add(topK("", DType.F32, new int[] {6, 50}, 5, -1, largest, Data.standard()));
            c.add(topK("_tiesGoToSmallerIndex", DType.F32, new int[] {5, 30}, 12, 1, largest, Data.ints(0, 4)));
            c.add(topK("", DType.F32, new int[] {3, 17}, 17, 1, largest, Data.standard()));
            c.add(topK("_nanRanksFirst", DType.F32, new int[] {2, 10}, 3, 1, largest, Data.standard().with(Double.NaN, 6, 2)));
        }
        c.add(topK("", DType.F32, new int[] {4, 9, 3}, 4, 1, true, Data.standard()));
        c.add(topK("", DType.F32, new int[] {4, 9, 3}, 2, 0, false, Data.standard()));
        c.add(topK("_tiesGoToSmallerIndex", DType.I32, new int[] {5, 30}, 4, 0, true, Data.ints(0, 4)));
        c.add(topK("_negativeZeroTiesWithZero", DType.F32, new int[] {1, 4}, 3, 1, true, Data.values(-0.0, 0.0, -1, -0.0)));
        c.add(topK("_kZero", DType.F32, new int[] {3, 8}, 0, 1, true, Data.standard()));
        c.add(topK("", DType.F32, new int[] {3, 1}, 1, 1, true, Data.standard()));
        c.add(topK("", DType.F64, new int[] {4, 21}, 6, 1, true, Data.standard()));
        c.add(topK("", DType.F16, new int[] {4, 21}, 3, 0, false, Data.standard()));
        c.add(topK("", DType.BF16, new int[] {4, 21}, 5, 1, true, Data.standard()));
        c.add(topK("", DType.I64, new int[] {4, 21}, 6, 1, false, Data.ints(-50, 50)));
        c.add(topK("", DType.U8, new int[] {4, 21}, 6, 1, true, Data.ints(0, 256)));
        c.add(topK("", DType.I8, new int[] {4, 21}, 6, 1, false, Data.ints(-128, 128)));
        // I64 values past 2^53 keep every bit: compared as longs, copied as bytes
        long big = 1L << 60;
        c.add(topK("_beyondDoublePrecision", DType.I64, new int[] {5}, 3, 0, true,
                Data.longs(big + 1, big + 3, big + 2, Long.MIN_VALUE, big + 3)));
        c.add(topK("", DType.F32, new int[] {16, 32000}, 50, 1, true, Data.standard())); // vocabulary-sized rows
    }
}
