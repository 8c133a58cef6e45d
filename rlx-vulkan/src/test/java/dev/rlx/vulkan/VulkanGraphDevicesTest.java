package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxGraph;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.devices.CostModels;
import dev.rlx.runtime.devices.DeviceGraph;
import dev.rlx.runtime.devices.DevicePolicy;
import dev.rlx.runtime.devices.DeviceReport;
import dev.rlx.runtime.devices.DeviceSelector;
import dev.rlx.runtime.devices.GraphDevices;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** One MiniLM graph through {@link GraphDevices} on [Vulkan, CPU]: the same sentence embeddings on each. */
class VulkanGraphDevicesTest {
    @Test
    void miniLm_throughGraphDevices_givesTheSameEmbeddingsOnVulkanAndTheCpu() {
        Assumptions.assumeTrue(Device.VULKAN.isAvailable(), VulkanTestDevice.MISSING);
        int batch = 2;
        int seq = 16;
        Map<String, Tensor> in = VulkanMiniLmTest.inputs(23, batch, seq);
        OnnxGraph imported = MiniLm.FP32.model().importGraph(OnnxBinding.of(in));
        DeviceSelector selector = new DeviceSelector(DevicePolicy.only(Device.VULKAN, Device.CPU), CostModels.heuristic(),
                Map.<String, String>of()::get, CompileOptions.defaults(), true);
        try (GraphDevices gd = new GraphDevices(imported.graph(), selector, true)) {
            assertEquals(List.of(Device.VULKAN, Device.CPU), gd.devices());
            imported.weights().forEach(gd::setParam);
            DeviceReport report = gd.report();
            System.out.print(report.table());
            DeviceGraph vk = gd.compile(Device.VULKAN);
            System.out.println("vulkan: " + (vk.partition() == null ? "whole graph" : vk.partition()));
            long[] mask = new long[batch * seq];
            for (int i = 0; i < mask.length; i++) {
                mask[i] = (long) in.get("attention_mask").getDouble(i);
            }
            float[][] onVulkan = embed(gd.runTyped(Device.VULKAN, in).get(0).toFloatArray(), mask, batch, seq);
            float[][] onCpu = embed(gd.runTyped(Device.CPU, in).get(0).toFloatArray(), mask, batch, seq);
            double worst = 0;
            for (int b = 0; b < batch; b++) {
                for (int j = 0; j < onCpu[b].length; j++) {
                    worst = Math.max(worst, Math.abs(onCpu[b][j] - onVulkan[b][j]));
                }
            }
            System.out.println("max |cpu - vulkan| over the embeddings = " + worst);
            assertTrue(worst <= 1e-4, "max |cpu - vulkan| over the embeddings = " + worst);
        }
    }

    /** Mean pooling over the unmasked tokens, then L2 normalisation (sentence-transformers' MiniLM head), in double. */
    static float[][] embed(float[] hidden, long[] mask, int batch, int seq) {
        int d = hidden.length / (batch * seq);
        float[][] out = new float[batch][d];
        for (int b = 0; b < batch; b++) {
            double[] sum = new double[d];
            int n = 0;
            for (int t = 0; t < seq; t++) {
                if (mask[b * seq + t] != 0) {
                    n++;
                    for (int j = 0; j < d; j++) {
                        sum[j] += hidden[(b * seq + t) * d + j];
                    }
                }
            }
            double norm = 0;
            for (int j = 0; j < d; j++) {
                sum[j] /= n;
                norm += sum[j] * sum[j];
            }
            norm = Math.sqrt(norm);
            for (int j = 0; j < d; j++) {
                out[b][j] = (float) (sum[j] / norm);
            }
        }
        return out;
    }
}
