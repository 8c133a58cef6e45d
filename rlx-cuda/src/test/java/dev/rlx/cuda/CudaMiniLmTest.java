package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.CpuBackend;
import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxGraph;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * all-MiniLM-L6-v2 imported from ONNX runs on CUDA with {@code last_hidden_state} within 1e-4 of the CPU backend;
 * the second sequence is half padding, so the attention mask matters. The fp32 model where its jar is on the
 * class path, else the int8 one (the GPU check carries the smaller jar when the fp32 one does not fit).
 */
class CudaMiniLmTest {
    static Map<String, Tensor> inputs(long seed, int batch, int seq) {
        Random r = new Random(seed);
        long[] ids = new long[batch * seq];
        long[] mask = new long[batch * seq];
        for (int b = 0; b < batch; b++) {
            int real = b == batch - 1 && batch > 1 ? seq / 2 : seq;
            for (int i = 0; i < real; i++) {
                ids[b * seq + i] = i == 0 ? 101 : i == real - 1 ? 102 : 1996 + r.nextInt(30522 - 1996);
                mask[b * seq + i] = 1;
            }
        }
        Map<String, Tensor> in = new LinkedHashMap<>();
        in.put("input_ids", Tensor.of(ids, batch, seq));
        in.put("attention_mask", Tensor.of(mask, batch, seq));
        in.put("token_type_ids", Tensor.of(new long[batch * seq], batch, seq));
        return in;
    }

    private static float[] hidden(Session s, OnnxGraph g, Map<String, Tensor> in) {
        try (CompiledGraph c = g.compile(s, s.defaults(), null)) {
            in.forEach(c::setInput);
            c.run();
            return c.output(0).toFloatArray();
        }
    }

    @Test
    void miniLm_onCuda_matchesTheCpuWithin1e4() {
        Assumptions.assumeTrue(Device.CUDA.isAvailable(), CudaTestDevice::missing);
        MiniLm which = MiniLm.FP32.available() ? MiniLm.FP32 : MiniLm.INT8;
        Assumptions.assumeTrue(which.available(), "no MiniLM model jar on the class path");
        OnnxModel model = which.model();
        Map<String, Tensor> in = inputs(11, 2, 16);
        OnnxGraph imported = model.importGraph(OnnxBinding.of(in));
        try (Session cpu = new Session(new CpuBackend()); Session gpu = new Session(Device.CUDA)) {
            float[] expected = hidden(cpu, imported, in);
            float[] actual = hidden(gpu, imported, in);
            assertEquals(expected.length, actual.length);
            double worst = 0;
            for (int i = 0; i < expected.length; i++) {
                worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
            }
            System.out.printf(Locale.ROOT, "MiniLM %s [2, 16] on %s: max |cpu - cuda| = %.3g%n", which,
                    gpu.backendName(), worst);
            assertTrue(worst <= 1e-4, "max |cpu - cuda| over last_hidden_state (" + which + ") = " + worst);
        }
    }
}
