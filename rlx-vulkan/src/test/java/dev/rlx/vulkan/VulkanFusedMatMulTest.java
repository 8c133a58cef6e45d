package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * FusedMatMul as one matmul.comp dispatch with its epilogue applied before the store (not a product and a
 * separate element-wise kernel): {@code relu(a @ b * scale[n] + residual[batch, m, n])} with a batch of 2 and
 * every transpose combination, against float64, |err| <= 1e-5 relative to max(1, |ref|) (f32 sums of 19
 * products of values in [-1, 1)), and the same bits on a second run.
 */
class VulkanFusedMatMulTest {
    private static final int BATCH = 2;
    private static final int M = 7;
    private static final int K = 19;
    private static final int N = 33;

    @BeforeAll
    static void needsADevice() {
        Assumptions.assumeTrue(Device.VULKAN.isAvailable(), VulkanTestDevice.MISSING);
    }

    @Test
    void epilogueRunsInTheMatmulKernel_andMatchesFloat64() {
        ElementwiseProgram epilogue = ElementwiseProgram.builder(3)
                .binary(BinaryKind.MUL, 0, 1).binary(BinaryKind.ADD, 3, 2).unary(UnaryKind.RELU, 4).build();
        for (boolean ta : new boolean[] {false, true}) {
            for (boolean tb : new boolean[] {false, true}) {
                Graph g = new Graph("fused_matmul");
                g.setOutputs(g.apply1(new Op.FusedMatMul(epilogue, ta, tb),
                        g.input("a", ta ? Shape.of(DType.F32, BATCH, K, M) : Shape.of(DType.F32, BATCH, M, K)),
                        g.input("b", tb ? Shape.of(DType.F32, N, K) : Shape.of(DType.F32, K, N)),
                        g.input("scale", Shape.of(DType.F32, N)), g.input("res", Shape.of(DType.F32, BATCH, M, N))));
                float[] a = VulkanTestDevice.uniform(BATCH * M * K, 1);
                float[] b = VulkanTestDevice.uniform(K * N, 2);
                float[] scale = VulkanTestDevice.uniform(N, 3);
                float[] res = VulkanTestDevice.uniform(BATCH * M * N, 4);
                Map<String, float[]> in = Map.of("a", a, "b", b, "scale", scale, "res", res);
                String what = "transA " + ta + " transB " + tb;
                try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(g)) {
                    assertEquals(1, c.kernelCount(), what + ": kernels");
                    float[] out = c.run(in).get(0);
                    float[] again = c.run(in).get(0);
                    for (int bt = 0; bt < BATCH; bt++) {
                        for (int i = 0; i < M; i++) {
                            for (int j = 0; j < N; j++) {
                                double dot = 0;
                                for (int k = 0; k < K; k++) {
                                    float x = ta ? a[(bt * K + k) * M + i] : a[(bt * M + i) * K + k];
                                    float y = tb ? b[j * K + k] : b[k * N + j];
                                    dot += (double) x * y;
                                }
                                int at = (bt * M + i) * N + j;
                                double ref = Math.max(0, dot * scale[j] + res[at]);
                                assertEquals(ref, out[at], 1e-5 * Math.max(1, Math.abs(ref)), what + " at " + at);
                                assertEquals(Float.floatToRawIntBits(out[at]), Float.floatToRawIntBits(again[at]),
                                        what + ": run-to-run bits at " + at);
                            }
                        }
                    }
                }
            }
        }
    }
}
