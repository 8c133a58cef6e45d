package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Attention as one attention.comp dispatch (not its decomposition): grouped-query heads in the BHSD layout,
 * causal with more keys than queries (a cached prefix), softcap and a key-padding additive mask, against a
 * float64 reference, |err| <= 1e-5 relative to max(1, |ref|); the same bits on a second run. Rows longer than
 * the kernel's shared memory holds are refused, so they run decomposed (several kernels).
 */
class VulkanAttentionTest {
    private static final int B = 2;
    private static final int H = 4;
    private static final int HKV = 2;
    private static final int SQ = 5;
    private static final int SK = 300;
    private static final int D = 24;

    @BeforeAll
    static void needsADevice() {
        Assumptions.assumeTrue(Device.VULKAN.isAvailable(), VulkanTestDevice.MISSING);
    }

    @Test
    void causalGroupedSoftcapMasked_isOneKernel_andMatchesFloat64() {
        Op.Attention op = Op.Attention.of(H, HKV, D).withLayout(HeadLayout.BHSD).causal().withSoftcap(3f);
        Graph g = new Graph("attention");
        g.setOutputs(g.apply1(op, g.input("q", Shape.of(DType.F32, B, H, SQ, D)),
                g.input("k", Shape.of(DType.F32, B, HKV, SK, D)), g.input("v", Shape.of(DType.F32, B, HKV, SK, D)),
                g.input("mask", Shape.of(DType.F32, B, 1, 1, SK))));
        float[] q = VulkanTestDevice.uniform(B * H * SQ * D, 1);
        float[] k = VulkanTestDevice.uniform(B * HKV * SK * D, 2);
        float[] v = VulkanTestDevice.uniform(B * HKV * SK * D, 3);
        float[] mask = VulkanTestDevice.uniform(B * SK, 4);
        for (int j = SK - 7; j < SK; j++) {
            mask[j] = Float.NEGATIVE_INFINITY; // batch 0's last 7 keys are padding
        }
        Map<String, float[]> in = Map.of("q", q, "k", k, "v", v, "mask", mask);
        try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(g)) {
            assertEquals(1, c.kernelCount(), "attention kernels");
            float[] out = c.run(in).get(0);
            float[] again = c.run(in).get(0);
            double[] p = new double[SK];
            for (int b = 0; b < B; b++) {
                for (int h = 0; h < H; h++) {
                    int kh = h / (H / HKV);
                    for (int i = 0; i < SQ; i++) {
                        double max = Double.NEGATIVE_INFINITY;
                        for (int j = 0; j < SK; j++) {
                            double dot = 0;
                            for (int x = 0; x < D; x++) {
                                dot += (double) q[((b * H + h) * SQ + i) * D + x] * k[((b * HKV + kh) * SK + j) * D + x];
                            }
                            double sc = 3 * Math.tanh(op.scale() * dot / 3) + mask[b * SK + j];
                            p[j] = j <= i + SK - SQ ? sc : Double.NEGATIVE_INFINITY;
                            max = Math.max(max, p[j]);
                        }
                        double sum = 0;
                        for (int j = 0; j < SK; j++) {
                            p[j] = Math.exp(p[j] - max);
                            sum += p[j];
                        }
                        for (int x = 0; x < D; x++) {
                            double ref = 0;
                            for (int j = 0; j < SK; j++) {
                                ref += p[j] / sum * v[((b * HKV + kh) * SK + j) * D + x];
                            }
                            int at = ((b * H + h) * SQ + i) * D + x;
                            assertEquals(ref, out[at], 1e-5 * Math.max(1, Math.abs(ref)), "b " + b + " h " + h + " q " + i);
                            assertEquals(Float.floatToRawIntBits(out[at]), Float.floatToRawIntBits(again[at]), "bits at " + at);
                        }
                    }
                }
            }
        }
    }

    @Test
    void rowsLongerThanTheKernelHolds_runDecomposed() {
        int keys = VulkanLowering.MAX_ATTENTION_KEYS + 1;
        Graph g = new Graph("long");
        g.setOutputs(g.apply1(Op.Attention.of(1, 1, 4), g.input("q", Shape.of(DType.F32, 1, 2, 4)),
                g.input("k", Shape.of(DType.F32, 1, keys, 4)), g.input("v", Shape.of(DType.F32, 1, keys, 4))));
        try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(g)) {
            assertTrue(c.kernelCount() > 1, "a " + keys + "-key row should run decomposed");
        }
    }
}
