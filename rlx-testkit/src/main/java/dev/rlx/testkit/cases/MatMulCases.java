package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.dims;
import static dev.rlx.testkit.cases.Shapes.f32;
import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code numpy.matmul}: ragged and prime sizes, K = 1 and 0, vectors, batch broadcasting both ways, a size that
 * takes the parallel blocked path, transposed operands (transpose nodes, which a backend may fold, and the
 * op's own flags), sliced operands, every numeric dtype.
 */
final class MatMulCases {
    private MatMulCases() {}

    /** Operand dims pairs, from {@code numpy.matmul}'s rules. */
    static final int[][][] SHAPES = {
            {{1, 4}, {4, 2}},
            {{7, 13}, {13, 19}},        // ragged rows and columns
            {{5, 1}, {1, 33}},          // K = 1
            {{1, 300}, {300, 700}},     // GEMV-like, two column blocks
            {{13}, {13, 6}},            // vector x matrix
            {{6, 13}, {13}},            // matrix x vector
            {{17}, {17}},               // dot product: a scalar
            {{2, 1, 5, 8}, {3, 8, 9}},  // batch broadcast both ways
            {{4, 6, 10}, {10, 3}},      // batched x shared matrix
            {{2, 7}, {4, 7, 5}},        // shared x batched
            {{3, 0}, {0, 4}},           // K = 0 gives zeros
            {{0, 5}, {5, 4}},           // M = 0
            {{1, 1}, {1, 1}},
            {{31, 37}, {37, 41}},       // primes
    };

    /** f32 accumulation of K products in [-1, 1]: error grows like sqrt(K) 6e-8; 1e-5 covers K <= 1000. */
    static final Tolerance F32 = Tolerance.of(1e-5, 1e-5, "f32 sums of up to 1000 products of values in [-1, 1]");

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        for (int[][] s : SHAPES) {
            String n = dims(s[0]) + "_" + dims(s[1]);
            c.add(plain("matmul_f32_" + n, DType.F32, s[0], s[1], F32));
            c.add(plain("matmul_f64_" + n, DType.F64, s[0], s[1], Tolerance.of(1e-12, 1e-12, "double sums")));
        }
        c.add(plain("matmul_f32_130x384_384x517", DType.F32, new int[] {130, 384}, new int[] {384, 517},
                Tolerance.of(2e-5, 1e-5, "f32 sums of 384 products, blocked and split across threads")));
        for (DType t : new DType[] {DType.F16, DType.BF16}) {
            // each half operand is exact; products accumulate in at least f32, then the result rounds once
            c.add(plain("matmul_" + t(t) + "_4x256_256x3", t, new int[] {4, 256}, new int[] {256, 3},
                    Tolerance.of(1e-2, t == DType.F16 ? 1e-3 : 8e-3, "sums of 256 products rounded once to " + t(t))));
            c.add(plain("matmul_" + t(t) + "_batched_2x5x9_9x7", t, new int[] {2, 5, 9}, new int[] {9, 7},
                    Tolerance.of(1e-2, t == DType.F16 ? 1e-3 : 8e-3, "sums of 9 products rounded once to " + t(t))));
        }
        integers(c);
        transposed(c);
        return new OpFamily("matmul", c);
    }

    private static OpCase plain(String name, DType t, int[] ad, int[] bd, Tolerance tol) {
        OpCase.Builder b = OpCase.named(name)
                .graph(g -> g.setOutputs(g.matmul(g.input("a", of(t, ad)), g.input("b", of(t, bd)))));
        return (t.isFloat() ? b.tolerance(t, tol) : b).build();
    }

    private static void integers(List<OpCase> c) {
        c.add(OpCase.named("matmul_i64_exact")
                .graph(g -> g.setOutputs(g.matmul(g.input("a", of(DType.I64, 2, 3)), g.input("b", of(DType.I64, 3, 2)))))
                .data("a", Data.longs(1, 2, 3, 4, 5, 6))
                .data("b", Data.longs(7, 8, 9, 10, 11, 12))
                .build());
        c.add(OpCase.named("matmul_i32_wrapsAt32Bits")
                .graph(g -> g.setOutputs(g.matmul(g.input("a", of(DType.I32, 1, 2)), g.input("b", of(DType.I32, 2, 1)))))
                .data("a", Data.longs(Integer.MAX_VALUE, 1))
                .data("b", Data.longs(1, 1))
                .build());
        for (DType t : new DType[] {DType.I8, DType.I16, DType.I32, DType.I64, DType.U8, DType.U32}) {
            c.add(OpCase.named("matmul_" + t(t) + "_batched_3x7x11_11x5")
                    .graph(g -> g.setOutputs(g.matmul(g.input("a", of(t, 3, 7, 11)), g.input("b", of(t, 11, 5)))))
                    .data("a", Data.uniform(-60, 60))
                    .data("b", Data.uniform(-60, 60))
                    .build());
        }
    }

    private static void transposed(List<OpCase> c) {
        for (boolean ta : new boolean[] {false, true}) {
            for (boolean tb : new boolean[] {false, true}) {
                String n = (ta ? "A" : "") + (tb ? "B" : "");
                if (n.isEmpty()) {
                    continue;
                }
                // transpose nodes feeding the matmul (a backend may fold them into the op's flags)
                c.add(OpCase.named("matmul_f32_transposed" + n + "Nodes_29x37x23")
                        .graph(g -> {
                            Value a = g.input("a", ta ? f32(37, 29) : f32(29, 37));
                            Value b = g.input("b", tb ? f32(23, 37) : f32(37, 23));
                            g.setOutputs(g.matmul(ta ? g.transpose(a, 1, 0) : a, tb ? g.transpose(b, 1, 0) : b));
                        })
                        .tolerance(DType.F32, F32)
                        .build());
                // the op's own flags, batched and broadcast
                c.add(OpCase.named("matmul_f32_trans" + n + "Flags_batched_2x3x11x5_3x17")
                        .graph(g -> {
                            Value a = g.input("a", ta ? f32(2, 3, 5, 11) : f32(2, 3, 11, 5));
                            Value b = g.input("b", tb ? f32(17, 5) : f32(5, 17));
                            g.setOutputs(g.apply1(new Op.MatMul(ta, tb), a, b));
                        })
                        .tolerance(DType.F32, F32)
                        .build());
                c.add(OpCase.named("matmul_f64_trans" + n + "Flags_7x19x13")
                        .graph(g -> {
                            Value a = g.input("a", ta ? of(DType.F64, 19, 7) : of(DType.F64, 7, 19));
                            Value b = g.input("b", tb ? of(DType.F64, 13, 19) : of(DType.F64, 19, 13));
                            g.setOutputs(g.apply1(new Op.MatMul(ta, tb), a, b));
                        })
                        .build());
            }
        }
        c.add(OpCase.named("matmul_f32_batchedTransposeNode_4x9x6")
                .graph(g -> {
                    Value a = g.input("a", f32(4, 6, 9));
                    Value b = g.input("b", f32(4, 6, 5));
                    g.setOutputs(g.matmul(g.swapAxes(a, -1, -2), b));   // [4, 9, 6] @ [4, 6, 5]
                })
                .tolerance(DType.F32, F32)
                .build());
        c.add(OpCase.named("matmul_f32_slicedOperands")
                .graph(g -> {
                    Value a = g.slice(g.input("a", f32(11, 40)), 1, 1, 19, 2);     // every other column: [11, 19]
                    Value b = g.slice(g.input("b", f32(30, 7)), 0, 29, 19, -1);    // rows reversed: [19, 7]
                    g.setOutputs(g.matmul(a, b));
                })
                .tolerance(DType.F32, F32)
                .build());
    }
}
