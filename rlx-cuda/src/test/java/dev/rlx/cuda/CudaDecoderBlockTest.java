package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.CpuBackend;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.models.LlamaBlock;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The Llama block of {@code rlx demo} on CUDA (RMS norms, RoPE, grouped-query causal attention and SiLU
 * decomposed into the backend's kernels) within 1e-4 of the CPU backend's fused kernels.
 */
class CudaDecoderBlockTest {
    private static float[] run(Session s, Graph g, Map<String, Tensor> weights, Tensor x) {
        try (CompiledGraph c = s.compile(g)) {
            weights.forEach(c::setParam);
            c.setInput("x", x);
            c.run();
            return c.output(0).toFloatArray();
        }
    }

    @Test
    void demoBlock_onCuda_matchesTheCpuWithin1e4() {
        Assumptions.assumeTrue(Device.CUDA.isAvailable(), CudaTestDevice::missing);
        LlamaBlock b = LlamaBlock.demo();
        Map<String, Tensor> w = b.randomWeights(42);
        Tensor x = b.randomInput(43);
        try (Session cpu = new Session(new CpuBackend()); Session gpu = new Session(Device.CUDA)) {
            float[] expected = run(cpu, b.build(), w, x);
            float[] actual = run(gpu, b.build(), w, x);
            assertEquals(expected.length, actual.length);
            double worst = 0;
            for (int i = 0; i < expected.length; i++) {
                worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
            }
            assertTrue(worst <= 1e-4, "max |cpu - cuda| = " + worst);
        }
    }
}
