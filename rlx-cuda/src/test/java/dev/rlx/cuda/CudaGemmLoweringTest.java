package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.rlx.cuda.bindings.Cublas;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The translation of row-major products into cuBLAS's column-major strided batched GEMM, checked without a GPU:
 * each product is lowered with operands at known "addresses" (element offsets), the {@link Step.Gemm} it gives is
 * evaluated by a plain column-major GEMM in double, and the result compared with numpy.matmul's definition on
 * random data. Products no single stride describes must fall back to the tiled kernel.
 */
class CudaGemmLoweringTest {
    record Case(String name, int[] a, int[] b, boolean transA, boolean transB) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        return List.of(
                new Case("7x13_13x19", new int[] {7, 13}, new int[] {13, 19}, false, false),
                new Case("transA_13x7_13x19", new int[] {13, 7}, new int[] {13, 19}, true, false),
                new Case("transB_7x13_19x13", new int[] {7, 13}, new int[] {19, 13}, false, true),
                new Case("transAB_13x7_19x13", new int[] {13, 7}, new int[] {19, 13}, true, true),
                new Case("vector_13_13x6", new int[] {13}, new int[] {13, 6}, false, false),
                new Case("matrixVector_6x13_13", new int[] {6, 13}, new int[] {13}, false, false),
                new Case("dot_17_17", new int[] {17}, new int[] {17}, false, false),
                new Case("K1_5x1_1x33", new int[] {5, 1}, new int[] {1, 33}, false, false),
                new Case("batched_4x6x10_10x3", new int[] {4, 6, 10}, new int[] {10, 3}, false, false),
                new Case("sharedLhs_2x7_4x7x5", new int[] {2, 7}, new int[] {4, 7, 5}, false, false),
                new Case("batch2_2x3x5x4_2x3x4x6", new int[] {2, 3, 5, 4}, new int[] {2, 3, 4, 6}, false, false),
                new Case("batchTransB_3x5x4_3x6x4", new int[] {3, 5, 4}, new int[] {3, 6, 4}, false, true));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void gemmStepComputesNumpyMatmul(Case c) {
        Graph g = new Graph("mm");
        Value a = g.input("a", Shape.of(DType.F32, c.a()));
        Value b = g.input("b", Shape.of(DType.F32, c.b()));
        Value out = g.apply1(new Op.MatMul(c.transA(), c.transB()), a, b);
        g.setOutputs(out);
        Node mm = g.nodes().stream().filter(n -> n.op() instanceof Op.MatMul).findFirst().orElseThrow();
        // one flat memory of doubles: a at 0, b after it, the result after b (addresses count elements here)
        long aSize = a.shape().elementCount();
        long bSize = b.shape().elementCount();
        long oSize = out.shape().elementCount();
        Map<Value, Long> at = new HashMap<>(Map.of(a, 0L, b, aSize, out, aSize + bSize));
        CudaLowering lowering = new CudaLowering(at::get, true);
        lowering.lower(mm);
        assertEquals(1, lowering.steps().size(), "one step for " + c);
        Step.Gemm gemm = assertInstanceOf(Step.Gemm.class, lowering.steps().get(0), "a cuBLAS GEMM for " + c);
        assertEquals(Cublas.CUDA_R_32F, gemm.cudaType());
        double[] mem = new double[(int) (aSize + bSize + oSize)];
        Random r = new Random(c.name().hashCode());
        for (int i = 0; i < aSize + bSize; i++) {
            mem[i] = r.nextDouble() * 2 - 1;
        }
        columnMajorGemm(gemm, mem);
        double[] expected = rowMajorMatmul(c, mem, aSize);
        for (int i = 0; i < oSize; i++) {
            assertEquals(expected[i], mem[(int) (aSize + bSize) + i], 1e-12, "element " + i + " of " + c);
        }
    }

    @org.junit.jupiter.api.Test
    void broadcastBatchNoSingleStrideDescribesFallsBackToTheKernel() {
        Graph g = new Graph("mm");
        Value a = g.input("a", Shape.of(DType.F32, 2, 1, 5, 8));
        Value b = g.input("b", Shape.of(DType.F32, 3, 8, 9));
        Value out = g.matmul(a, b);
        g.setOutputs(out);
        Node mm = g.nodes().stream().filter(n -> n.op() instanceof Op.MatMul).findFirst().orElseThrow();
        CudaLowering lowering = new CudaLowering(v -> 1024, true);
        lowering.lower(mm);
        Step.Launch l = assertInstanceOf(Step.Launch.class, lowering.steps().get(0));
        assertEquals("matmul", l.kernel().file());
        assertEquals(6, l.gridZ(), "2 x 3 batches");
    }

    @org.junit.jupiter.api.Test
    void integerProductsRunTheKernel() {
        Graph g = new Graph("mm");
        Value out = g.matmul(g.input("a", Shape.of(DType.I32, 3, 4)), g.input("b", Shape.of(DType.I32, 4, 5)));
        g.setOutputs(out);
        Node mm = g.nodes().stream().filter(n -> n.op() instanceof Op.MatMul).findFirst().orElseThrow();
        CudaLowering lowering = new CudaLowering(v -> 1024, true);
        lowering.lower(mm);
        assertInstanceOf(Step.Launch.class, lowering.steps().get(0));
    }

    /** cuBLAS's definition: C[b] = op(A[b]) op(B[b]), column-major, element (i, j) of X at i + j * ld. */
    static void columnMajorGemm(Step.Gemm g, double[] mem) {
        for (int batch = 0; batch < g.batches(); batch++) {
            long a0 = g.a() + batch * g.strideA();
            long b0 = g.b() + batch * g.strideB();
            long c0 = g.c() + batch * g.strideC();
            for (int i = 0; i < g.m(); i++) {
                for (int j = 0; j < g.n(); j++) {
                    double s = 0;
                    for (int k = 0; k < g.k(); k++) {
                        double x = g.transA() == Cublas.CUBLAS_OP_N ? mem[(int) (a0 + i + (long) k * g.lda())]
                                : mem[(int) (a0 + k + (long) i * g.lda())];
                        double y = g.transB() == Cublas.CUBLAS_OP_N ? mem[(int) (b0 + k + (long) j * g.ldb())]
                                : mem[(int) (b0 + j + (long) k * g.ldb())];
                        s += x * y;
                    }
                    mem[(int) (c0 + i + (long) j * g.ldc())] = s;
                }
            }
        }
    }

    /** numpy.matmul of the case's operands (row-major, at 0 and aSize), with the op's transposes. */
    static double[] rowMajorMatmul(Case c, double[] mem, long aSize) {
        int[] ad = c.a().length == 1 ? new int[] {1, c.a()[0]} : c.a();
        int[] bd = c.b().length == 1 ? new int[] {c.b()[0], 1} : c.b();
        int ar = ad.length;
        int br = bd.length;
        int m = c.transA() ? ad[ar - 1] : ad[ar - 2];
        int k = c.transA() ? ad[ar - 2] : ad[ar - 1];
        int n = c.transB() ? bd[br - 2] : bd[br - 1];
        int batchA = 1;
        for (int i = 0; i < ar - 2; i++) {
            batchA *= ad[i];
        }
        int batchB = 1;
        for (int i = 0; i < br - 2; i++) {
            batchB *= bd[i];
        }
        int batches = Math.max(batchA, batchB); // the cases broadcast a whole side only
        double[] out = new double[batches * m * n];
        for (int bt = 0; bt < batches; bt++) {
            int oa = (batchA == 1 ? 0 : bt) * ad[ar - 2] * ad[ar - 1];
            int ob = (batchB == 1 ? 0 : bt) * bd[br - 2] * bd[br - 1];
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int q = 0; q < k; q++) {
                        double x = mem[oa + (c.transA() ? q * ad[ar - 1] + i : i * ad[ar - 1] + q)];
                        double y = mem[(int) aSize + ob + (c.transB() ? j * bd[br - 1] + q : q * bd[br - 1] + j)];
                        s += x * y;
                    }
                    out[(bt * m + i) * n + j] = s;
                }
            }
        }
        return out;
    }
}
