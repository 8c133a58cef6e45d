package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;

import dev.rlx.testkit.reference.ElementRefs;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fusion products (fused element-wise chains, matmul epilogues, residual add + norm) against float64
 * references that evaluate the same maths op by op.
 */
class FusedKernelsTest {
    private final Random r = new Random(77);

    /** gelu(in0 * in1 + in2) - in0 / 3, over broadcast operands. */
    private static ElementwiseProgram program() {
        return ElementwiseProgram.builder(4)
                .binary(BinaryKind.MUL, 0, 1)      // 4
                .binary(BinaryKind.ADD, 4, 2)      // 5
                .unary(UnaryKind.GELU, 5)          // 6
                .binary(BinaryKind.DIV, 0, 3)      // 7
                .binary(BinaryKind.SUB, 6, 7)      // 8
                .build();
    }

    private static double programRef(double a, double b, double c, double d) {
        double t = a * b + c;
        double gelu = 0.5 * t * (1 + ElementRefs.erf(t / Math.sqrt(2)));
        return gelu - a / d;
    }

    @Test
    void fused_broadcastOperands_matchReference() {
        int[][][] cases = {
                {{3, 1029}, {1029}, {3, 1}, {}},           // row, column and scalar broadcast; > one piece
                {{2, 3, 17}, {2, 3, 17}, {17}, {1}},       // contiguous operands merge into one row
                {{5000}, {1}, {5000}, {5000}},             // long flat run
                {{3, 16411}, {1}, {3, 16411}, {16411}},    // rows longer than a piece (16384): pieces start mid-row
                {{40, 4099}, {4099}, {40, 1}, {}},         // 2 parts taking 40 pieces in chunks as they finish
                {{4, 1, 6}, {1, 5, 1}, {6}, {4, 5, 6}},    // a 3-d outer broadcast
        };
        for (int[][] c : cases) {
            Ref a = Ref.random(r, -2, 2, c[0]);
            Ref b = Ref.random(r, -2, 2, c[1]);
            Ref cc = Ref.random(r, -1, 1, c[2]);
            Ref d = Ref.random(r, 1, 4, c[3]);
            Graph g = new Graph("fused");
            Value va = g.input("a", Shape.of(DType.F32, c[0]));
            Value vb = g.input("b", Shape.of(DType.F32, c[1]));
            Value vc = g.input("c", Shape.of(DType.F32, c[2]));
            Value vd = g.input("d", Shape.of(DType.F32, c[3]));
            Value y = g.apply1(new Op.Fused(program()), va, vb, vc, vd);
            g.setOutputs(y);
            double[] out = Runner.run(g, Map.of("a", a, "b", b, "c", cc, "d", d), 2).get(0);
            Ref e = Ref.zeros(y.shape().dims());
            for (int i = 0; i < e.size(); i++) {
                int[] idx = e.unravel(i);
                e.data()[i] = programRef(a.atBroadcast(idx), b.atBroadcast(idx), cc.atBroadcast(idx), d.atBroadcast(idx));
            }
            // five f32 steps, erf within 1.5e-7: errors stay near a few ulp of values of order 1-10
            assertClose(e.data(), out, 2e-6, 2e-6, "fused " + java.util.Arrays.deepToString(c));
        }
    }

    @Test
    void fusedMatMul_biasGeluAndResidualEpilogue_matchReference() {
        // out = gelu(a @ w + bias) + residual, batched with a shared weight
        ElementwiseProgram epi = ElementwiseProgram.builder(3)
                .binary(BinaryKind.ADD, 0, 1).unary(UnaryKind.GELU, 3).binary(BinaryKind.ADD, 4, 2).build();
        // {batch, m, n, k}; the last is a GEMV that splits K over the threads, its epilogue after the partial sums
        int[][] shapes = {{2, 9, 37, 23}, {1, 130, 600, 23}, {1, 1, 1100, 1000}};
        for (int[] sh : shapes) {
            int bt = sh[0];
            int m = sh[1];
            int k = sh[3];
            int n = sh[2];
            Ref a = Ref.random(r, -1, 1, bt, m, k);
            Ref w = Ref.random(r, -0.5, 0.5, k, n);
            Ref bias = Ref.random(r, -1, 1, n);
            Ref res = Ref.random(r, -1, 1, bt, m, n);
            Graph g = new Graph("fmm");
            Value y = g.apply1(new Op.FusedMatMul(epi), g.input("a", Shape.of(DType.F32, bt, m, k)),
                    g.param("w", Shape.of(DType.F32, k, n)), g.param("bias", Shape.of(DType.F32, n)),
                    g.input("res", Shape.of(DType.F32, bt, m, n)));
            g.setOutputs(y);
            double[] out = Runner.run(g, Map.of("a", a, "w", w, "bias", bias, "res", res)).get(0);
            Ref e = Ref.zeros(bt, m, n);
            for (int b0 = 0; b0 < bt; b0++) {
                for (int i = 0; i < m; i++) {
                    for (int j = 0; j < n; j++) {
                        double acc = 0;
                        for (int p = 0; p < k; p++) {
                            acc += a.at(b0, i, p) * w.at(p, j);
                        }
                        double t = acc + bias.at(j);
                        double gelu = 0.5 * t * (1 + ElementRefs.erf(t / Math.sqrt(2)));
                        e.set(gelu + res.at(b0, i, j), b0, i, j);
                    }
                }
            }
            assertClose(e.data(), out, 1e-5, 1e-5, "fused matmul " + java.util.Arrays.toString(sh));
        }
    }

    @Test
    void addNorm_rmsAndLayer_matchReference() {
        for (boolean rms : new boolean[] {true, false}) {
            int rows = 7;
            int d = 333;
            Ref x = Ref.random(r, -2, 2, rows, d);
            Ref res = Ref.random(r, -2, 2, rows, d);
            Ref gamma = Ref.random(r, 0.5, 1.5, d);
            Ref beta = Ref.random(r, -0.5, 0.5, d);
            Graph g = new Graph("addnorm");
            List<Value> outs = g.apply(new Op.AddNorm(rms, 1, 1e-5f), g.input("x", Shape.of(DType.F32, rows, d)),
                    g.input("res", Shape.of(DType.F32, rows, d)), g.param("g", Shape.of(DType.F32, d)),
                    g.param("b", Shape.of(DType.F32, d)));
            g.setOutputs(outs);
            Map<String, Object> data = new HashMap<>(Map.of("x", x, "res", res, "g", gamma, "b", beta));
            List<double[]> out = Runner.run(g, data);
            double[] sum = new double[rows * d];
            double[] norm = new double[rows * d];
            for (int i = 0; i < rows; i++) {
                double mean = 0;
                for (int j = 0; j < d; j++) {
                    sum[i * d + j] = (float) (x.at(i, j) + res.at(i, j)); // the sum is stored in f32
                    mean += sum[i * d + j];
                }
                mean = rms ? 0 : mean / d;
                double var = 0;
                for (int j = 0; j < d; j++) {
                    var += (sum[i * d + j] - mean) * (sum[i * d + j] - mean);
                }
                double rstd = 1 / Math.sqrt(var / d + 1e-5);
                for (int j = 0; j < d; j++) {
                    norm[i * d + j] = (sum[i * d + j] - mean) * rstd * gamma.at(j) + beta.at(j);
                }
            }
            assertClose(sum, out.get(0), 0, 0, "add_norm sum (rms=" + rms + ")");
            assertClose(norm, out.get(1), 1e-5, 1e-5, "add_norm normalised (rms=" + rms + ")");
        }
    }
}
