package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.f32;
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

/** Reshape, transpose, slice, concat and expand move data exactly: every dtype, bit for bit. */
final class MovementCases {
    private MovementCases() {}

    static final Tolerance EXACT = Tolerance.exact("movement copies elements");

    private static final DType[] ALL = {DType.F32, DType.I64, DType.F16, DType.BOOL, DType.F64, DType.I8, DType.BF16,
            DType.I16, DType.I32, DType.U8, DType.U32, DType.C64};

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        for (DType t : ALL) {
            c.add(exact(OpCase.named("transpose_" + t(t) + "_rank4_2x3x4x5_perm2031")
                    .graph(g -> g.setOutputs(g.transpose(g.input("x", of(t, 2, 3, 4, 5)), 2, 0, 3, 1)))
                    .data("x", data(t)), t));
            c.add(exact(OpCase.named("concat_" + t(t) + "_axis1_withEmptyPart")
                    .graph(g -> g.setOutputs(g.concat(1, g.input("a", of(t, 2, 3, 4)), g.input("e", of(t, 2, 0, 4)),
                            g.input("b", of(t, 2, 5, 4)))))
                    .data("a", data(t)).data("b", data(t)), t));
            c.add(exact(OpCase.named("slice_" + t(t) + "_negativeStep")
                    .graph(g -> g.setOutputs(g.slice(g.input("x", of(t, 3, 10, 4)), 1, 9, 5, -2)))
                    .data("x", data(t)), t));
            c.add(exact(OpCase.named("expand_" + t(t) + "_3x1_to_2x3x5")
                    .graph(g -> g.setOutputs(g.expand(g.input("x", of(t, 3, 1)), 2, 3, 5)))
                    .data("x", data(t)), t));
            c.add(exact(OpCase.named("reshape_" + t(t) + "_6x4_to_2x3x4")
                    .graph(g -> g.setOutputs(g.reshape(g.input("x", of(t, 6, 4)), 2, 3, 4)))
                    .data("x", data(t)), t));
        }
        c.add(exact(OpCase.named("transpose_f32_large_300x517")
                .graph(g -> g.setOutputs(g.transpose(g.input("x", f32(300, 517)), 1, 0))), DType.F32));
        c.add(exact(OpCase.named("transpose_f32_rank5_3x1x7x2x9_perm40213")
                .graph(g -> g.setOutputs(g.transpose(g.input("x", f32(3, 1, 7, 2, 9)), 4, 0, 2, 1, 3))), DType.F32));
        int[][] slices = {{1, 1, 4, 2}, {1, 9, 5, -2}, {2, 3, 1, 1}, {0, 1, 2, 1}, {1, 0, 0, 1}, {2, 3, 4, -1}};
        for (int[] s : slices) {
            c.add(exact(OpCase.named("slice_f32_3x10x4_axis" + s[0] + "_start" + s[1] + "_length" + s[2] + "_step" + s[3])
                    .graph(g -> g.setOutputs(g.slice(g.input("x", f32(3, 10, 4)), s[0], s[1], s[2], s[3]))), DType.F32));
        }
        // contiguous rows: a view where the planner can alias it, and a view of the view
        c.add(exact(OpCase.named("slice_f32_leadingRowsThenReshape")
                .graph(g -> {
                    Value y = g.reshape(g.narrow(g.input("x", f32(6, 3)), 0, 2, 3), 9);
                    g.setOutputs(g.add(y, y), y);
                }), DType.F32));
        for (int axis = 0; axis < 3; axis++) {
            int[] ed = {2, 3, 4};
            ed[axis] = 0;
            int a = axis;
            c.add(exact(OpCase.named("concat_f32_2x3x4_axis" + axis + "_withEmptyPart")
                    .graph(g -> g.setOutputs(g.concat(a, g.input("a", f32(2, 3, 4)), g.input("e", f32(ed)),
                            g.input("b", f32(2, 3, 4))))), DType.F32));
        }
        c.add(exact(OpCase.named("concat_f32_large_3parts_axis0")
                .graph(g -> g.setOutputs(g.concat(0, g.input("a", f32(129, 257)), g.input("b", f32(1, 257)),
                        g.input("c", f32(70, 257))))), DType.F32));
        c.add(exact(OpCase.named("expand_f32_leadingAndInnerOnes_1x4x1_to_3x2x4x5")
                .graph(g -> g.setOutputs(g.expand(g.input("x", f32(1, 4, 1)), 3, 2, 4, 5))), DType.F32));
        // reshape -> transpose -> slice -> concat, all exact
        c.add(OpCase.named("movementChain_i64")
                .graph(g -> {
                    Value t = g.transpose(g.reshape(g.input("x", of(DType.I64, 4, 6)), 2, 2, 6), 2, 0, 1); // [6,2,2]
                    Value s = g.slice(t, 0, 5, 3, -2);                                                  // rows 5,3,1
                    g.setOutputs(g.concat(0, s, s), g.expand(g.reshape(s, 3, 1, 4), 3, 2, 4));
                })
                .data("x", Data.ints(-300, 300))
                .build());
        return new OpFamily("movement", c);
    }

    private static Data data(DType t) {
        return t.isBool() ? Data.bools() : t.isInteger() ? Data.uniform(-50, 50) : Data.uniform(-4, 4);
    }

    private static OpCase exact(OpCase.Builder b, DType t) {
        return (t.isFloat() || t.isComplex() ? b.tolerance(t, EXACT) : b).build();
    }
}
