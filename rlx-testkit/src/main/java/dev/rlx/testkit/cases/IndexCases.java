package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.dims;
import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * Gather (copies: exact, any dtype, negative indices, scalar and empty indices) and scatter-add (duplicates
 * accumulate; a handful of f32 additions per element: 1e-6; integers exact and wrapping).
 */
final class IndexCases {
    private IndexCases() {}

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        gather(c);
        scatterAdd(c);
        return new OpFamily("index", c);
    }

    private static OpCase gather(String suffix, DType t, int[] dd, DType it, int[] id, int axis, Data data, Data idx) {
        OpCase.Builder b = OpCase.named("gather_" + t(t) + "_" + dims(dd) + "_" + t(it) + dims(id) + "_axis" + axis + suffix)
                .graph(g -> g.setOutputs(g.gather(g.input("data", of(t, dd)), g.input("idx", of(it, id)), axis)))
                .data("data", data)
                .data("idx", idx);
        return (t.isFloat() ? b.tolerance(t, Tolerance.exact("gather copies elements")) : b).build();
    }

    private static void gather(List<OpCase> c) {
        Data f = Data.standard();
        c.add(gather("_embeddingRows", DType.F32, new int[] {10, 8}, DType.I64, new int[] {3, 4}, 0, f, Data.ints(0, 10)));
        c.add(gather("_embeddingRows", DType.F32, new int[] {10, 8}, DType.I32, new int[] {7}, 0, f, Data.ints(0, 10)));
        c.add(gather("", DType.F32, new int[] {3, 5, 4}, DType.I32, new int[] {2, 3}, 1, f, Data.ints(0, 5)));
        c.add(gather("", DType.F32, new int[] {3, 5, 4}, DType.I64, new int[] {6}, -1, f, Data.ints(0, 4)));
        c.add(gather("_negativeIndices", DType.F32, new int[] {5, 3}, DType.I64, new int[] {8}, 0, f, Data.ints(-5, 5)));
        c.add(gather("_negativeIndices", DType.F32, new int[] {5, 3}, DType.I32, new int[] {2, 2}, 1, f, Data.ints(-3, 3)));
        c.add(gather("_scalarIndexDropsTheAxis", DType.F32, new int[] {4, 6}, DType.I64, new int[] {}, 1, f, Data.longs(-2)));
        Data idx = Data.ints(-6, 6);
        c.add(gather("", DType.I64, new int[] {6, 5}, DType.I64, new int[] {9}, 0, Data.ints(-1000, 1000), idx));
        c.add(gather("", DType.F16, new int[] {6, 5}, DType.I32, new int[] {9}, 0, f, idx));
        c.add(gather("", DType.U8, new int[] {3, 6}, DType.I64, new int[] {9}, 1, Data.ints(0, 256), idx));
        c.add(gather("", DType.BOOL, new int[] {6, 5}, DType.I32, new int[] {9}, 0, Data.bools(), idx));
        c.add(gather("", DType.F64, new int[] {2, 6, 3}, DType.I64, new int[] {9}, 1, f, idx));
        c.add(gather("", DType.BF16, new int[] {6, 5}, DType.I64, new int[] {3, 3}, 0, f, idx));
        c.add(gather("", DType.I32, new int[] {6, 5}, DType.I32, new int[] {4}, 1, Data.uniform(-1e6, 1e6), Data.ints(-5, 5)));
        // one 8-byte element per gathered row (along the last axis), several outer rows
        c.add(gather("_lastAxisLongs", DType.I64, new int[] {4, 7}, DType.I64, new int[] {2, 5}, 1,
                Data.ints(-1000, 1000), Data.ints(-7, 7)));
        c.add(gather("", DType.I8, new int[] {6, 5}, DType.I64, new int[] {4}, 0, Data.uniform(-100, 100), idx));
        c.add(gather("", DType.C64, new int[] {6, 5}, DType.I64, new int[] {4}, 0, f, idx));
        c.add(gather("_emptyIndices", DType.F32, new int[] {4, 6}, DType.I64, new int[] {0}, 0, f, Data.ints(0, 4)));
        c.add(gather("_large", DType.F32, new int[] {8000, 256}, DType.I32, new int[] {4096}, 0, f, Data.ints(-8000, 8000)));
        c.add(gather("_large", DType.F32, new int[] {512, 300}, DType.I64, new int[] {200}, 1, f, Data.ints(0, 300)));
        // last-axis gathers (Resize's) split over threads mid-row: odd index counts, 4- and 8-byte elements
        c.add(gather("_lastAxisSplitRows", DType.F32, new int[] {9, 37, 41}, DType.I64, new int[] {83}, 2, f,
                Data.ints(-41, 41)));
        c.add(gather("_lastAxisSplitRows", DType.F64, new int[] {64, 301}, DType.I32, new int[] {257}, 1, f,
                Data.ints(0, 301)));
    }

    private static OpCase scatter(String suffix, DType t, int[] dd, DType it, int[] id, int axis, Data data, Data idx,
                                  Data upd, Tolerance tol) {
        OpCase.Builder b = OpCase.named("scatterAdd_" + t(t) + "_" + dims(dd) + "_" + t(it) + dims(id) + "_axis" + axis + suffix)
                .graph(g -> g.setOutputs(g.scatterAdd(g.input("data", of(t, dd)), g.input("idx", of(it, id)),
                        g.input("upd", of(t, id)), axis)))
                .data("data", data)
                .data("idx", idx)
                .data("upd", upd);
        return (t.isFloat() ? b.tolerance(t, tol) : b).build();
    }

    private static void scatterAdd(List<OpCase> c) {
        Data f = Data.standard();
        Tolerance f32 = Tolerance.of(1e-6, 1e-6, "a handful of f32 additions per element");
        c.add(scatter("_duplicateIndicesAccumulate", DType.F32, new int[] {5, 3}, DType.I64, new int[] {4, 3}, 0, f,
                Data.longs(1, 1, 1, 1, 1, 1, 4, 0, 1, 4, 0, 1), f, f32));
        c.add(scatter("", DType.F32, new int[] {3, 4, 5}, DType.I32, new int[] {3, 6, 5}, 1, f, Data.ints(0, 4), f, f32));
        c.add(scatter("", DType.F32, new int[] {3, 4, 5}, DType.I64, new int[] {3, 4, 9}, -1, f, Data.ints(0, 5), f, f32));
        c.add(scatter("_indicesSmallerThanData", DType.F32, new int[] {4, 6}, DType.I64, new int[] {2, 3}, 1, f,
                Data.ints(0, 6), f, f32));
        c.add(scatter("_negativeIndices", DType.F32, new int[] {4, 6}, DType.I64, new int[] {5, 6}, 0, f, Data.ints(-4, 4), f,
                f32));
        Data idx = Data.ints(-4, 4);
        c.add(scatter("", DType.F64, new int[] {4, 3}, DType.I32, new int[] {6, 3}, 0, f, idx, f,
                Tolerance.of(1e-12, 1e-12, "double")));
        c.add(scatter("", DType.I64, new int[] {4, 3}, DType.I64, new int[] {6, 3}, 0, Data.ints(-9, 9), idx, Data.ints(-9, 9),
                null));
        // small integers are exact in f16, so every rounded partial sum is too
        c.add(scatter("_smallIntegersAreExact", DType.F16, new int[] {4, 3}, DType.I64, new int[] {6, 3}, 0, Data.ints(-9, 9),
                idx, Data.ints(-9, 9), Tolerance.exact("small integers and their sums are exact in f16")));
        c.add(scatter("", DType.BF16, new int[] {4, 3}, DType.I64, new int[] {6, 3}, 0, f, idx, f,
                Tolerance.of(1e-2, 8e-3, "one bf16 rounding of a few additions")));
        c.add(scatter("_wraps", DType.I32, new int[] {4, 3}, DType.I32, new int[] {6, 3}, 0,
                Data.longs(repeat(12, Integer.MAX_VALUE)), idx, Data.ints(1, 9), null));
        for (DType t : new DType[] {DType.I8, DType.U8, DType.I16, DType.U32}) {
            c.add(scatter("_wraps", t, new int[] {4, 3}, DType.I64, new int[] {6, 3}, 0, Data.uniform(-100, 200), idx,
                    Data.uniform(-100, 200), null));
        }
        c.add(scatter("_large", DType.F32, new int[] {1000, 512}, DType.I64, new int[] {2000, 512}, 0, f, Data.ints(0, 1000),
                f, Tolerance.of(1e-5, 1e-5, "up to ~10 f32 additions per element")));
    }

    private static long[] repeat(int n, long v) {
        long[] r = new long[n];
        java.util.Arrays.fill(r, v);
        return r;
    }
}
