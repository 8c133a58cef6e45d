package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.f32;
import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Op;
import dev.rlx.ir.UnaryKind;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * The fusion products built directly: a fused element-wise program over broadcast operands (long rows, pieces
 * starting mid-row, outer broadcasts) and matmul epilogues (bias, activation, residual; batched, large, a GEMV
 * that splits K). The residual add + norm is in the norm family.
 */
final class FusedCases {
    private FusedCases() {}

    /** {@code gelu(in0 * in1 + in2) - in0 / in3}. */
    static ElementwiseProgram program() {
        return ElementwiseProgram.builder(4)
                .binary(BinaryKind.MUL, 0, 1)      // 4
                .binary(BinaryKind.ADD, 4, 2)      // 5
                .unary(UnaryKind.GELU, 5)          // 6
                .binary(BinaryKind.DIV, 0, 3)      // 7
                .binary(BinaryKind.SUB, 6, 7)      // 8
                .build();
    }

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        int[][][] operands = {
                {{3, 1029}, {1029}, {3, 1}, {}},           // row, column and scalar broadcast; > one piece
                {{2, 3, 17}, {2, 3, 17}, {17}, {1}},       // contiguous operands merge into one row
                {{5000}, {1}, {5000}, {5000}},             // a long flat run
                {{3, 16411}, {1}, {3, 16411}, {16411}},    // rows longer than a piece: pieces start mid-row
                {{40, 4099}, {4099}, {40, 1}, {}},         // many pieces taken as parts finish
                {{4, 1, 6}, {1, 5, 1}, {6}, {4, 5, 6}},    // a 3-d outer broadcast
                {{1}, {1}, {1}, {1}},
        };
        for (int[][] o : operands) {
            c.add(OpCase.named("fused_f32_" + Shapes.dims(o[0]) + "_" + Shapes.dims(o[1]) + "_" + Shapes.dims(o[2]) + "_"
                            + Shapes.dims(o[3]))
                    .graph(g -> g.setOutputs(g.apply1(new Op.Fused(program()), g.input("a", f32(o[0])),
                            g.input("b", f32(o[1])), g.input("c", f32(o[2])), g.input("d", f32(o[3])))))
                    .data("a", Data.uniform(-2, 2))
                    .data("b", Data.uniform(-2, 2))
                    .data("d", Data.uniform(1, 4))
                    // five f32 steps, erf within 1.5e-7: errors stay near a few ulp of values of order 1-10
                    .tolerance(DType.F32, Tolerance.of(2e-6, 2e-6, "five f32 steps with erf"))
                    .build());
        }
        for (DType t : new DType[] {DType.F64, DType.F16, DType.BF16}) {
            c.add(OpCase.named("fused_" + t(t) + "_7x33_33_7x1_scalar")
                    .graph(g -> g.setOutputs(g.apply1(new Op.Fused(program()), g.input("a", of(t, 7, 33)),
                            g.input("b", of(t, 33)), g.input("c", of(t, 7, 1)), g.input("d", of(t)))))
                    .data("d", Data.uniform(1, 4))
                    .tolerance(DType.F16, Tolerance.of(1e-3, 2e-3, "rounded to f16 after each step"))
                    .tolerance(DType.BF16, Tolerance.of(8e-3, 2e-2, "rounded to bf16 after each step"))
                    .build());
        }
        // gelu(a @ w + bias) + residual
        ElementwiseProgram epilogue = ElementwiseProgram.builder(3)
                .binary(BinaryKind.ADD, 0, 1).unary(UnaryKind.GELU, 3).binary(BinaryKind.ADD, 4, 2).build();
        // {batch, m, n, k}; the last is a GEMV that splits K over threads, its epilogue after the partial sums
        int[][] mm = {{2, 9, 37, 23}, {1, 130, 600, 23}, {1, 1, 1100, 1000}};
        for (int[] s : mm) {
            int bt = s[0];
            int m = s[1];
            int n = s[2];
            int k = s[3];
            c.add(OpCase.named("fusedMatMul_f32_biasGeluResidual_" + bt + "x" + m + "x" + k + "_" + k + "x" + n)
                    .graph(g -> g.setOutputs(g.apply1(new Op.FusedMatMul(epilogue), g.input("a", f32(bt, m, k)),
                            g.param("w", f32(k, n)), g.param("bias", f32(n)), g.input("res", f32(bt, m, n)))))
                    .data("w", Data.uniform(-0.5, 0.5))
                    .tolerance(DType.F32, Tolerance.of(1e-5, 1e-5, "f32 sums of up to 1000 products, then three steps"))
                    .build());
        }
        for (boolean ta : new boolean[] {false, true}) {
            for (boolean tb : new boolean[] {false, true}) {
                ElementwiseProgram relu = ElementwiseProgram.builder(2)
                        .binary(BinaryKind.MUL, 0, 1).unary(UnaryKind.RELU, 2).build();
                c.add(OpCase.named("fusedMatMul_f32_scaleRelu_transA" + ta + "_transB" + tb)
                        .graph(g -> g.setOutputs(g.apply1(new Op.FusedMatMul(relu, ta, tb),
                                g.input("a", ta ? f32(19, 7) : f32(7, 19)), g.input("b", tb ? f32(11, 19) : f32(19, 11)),
                                g.input("s", f32(11)))))
                        .tolerance(DType.F32, Tolerance.of(1e-5, 1e-5, "f32 sums of 19 products"))
                        .build());
            }
        }
        c.add(OpCase.named("fusedMatMul_f64_siluEpilogue_batched")
                .graph(g -> g.setOutputs(g.apply1(new Op.FusedMatMul(ElementwiseProgram.builder(1)
                                .unary(UnaryKind.SILU, 0).build()), g.input("a", of(DType.F64, 3, 4, 6)),
                        g.input("b", of(DType.F64, 6, 5)))))
                .build());
        return new OpFamily("fused", c);
    }
}
