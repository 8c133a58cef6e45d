package dev.rlx.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An ONNX model run at several input shapes holds its weights once, shared by every compiled shape. */
class OnnxRunnerWeightsTest {
    private static Map<String, Tensor> tokens(int seq) {
        long[] ids = new long[seq];
        Arrays.fill(ids, 2023);
        ids[0] = 101;
        ids[seq - 1] = 102;
        long[] mask = new long[seq];
        Arrays.fill(mask, 1);
        Map<String, Tensor> in = new LinkedHashMap<>();
        in.put("input_ids", Tensor.of(ids, 1, seq));
        in.put("attention_mask", Tensor.of(mask, 1, seq));
        in.put("token_type_ids", Tensor.of(new long[seq], 1, seq));
        return in;
    }

    @Test
    void miniLmAtThreeSequenceLengths_holdsItsWeightsOnce() {
        OnnxModel model = MiniLm.FP32.model();
        try (Session s = new Session(Device.CPU); OnnxRunner r = new OnnxRunner(model, s)) {
            long onePass = 0;
            for (int seq : new int[] {16, 128, 256}) {
                Map<String, Tensor> out = r.run(tokens(seq));
                assertEquals(seq, out.get("last_hidden_state").shape().dim(1));
                if (onePass == 0) {
                    onePass = r.weights().byteSize();
                }
            }
            assertEquals(3, r.compiledVariants());
            assertEquals(3, r.weights().users(), "every shape reads the runner's one weight set");
            // all-MiniLM-L6-v2's float initializers above 64 elements: 22.6 M parameters in f32
            assertEquals(90_261_504L, r.weights().byteSize(), r.memoryReport());
            assertEquals(onePass, r.weights().byteSize(), "compiling more shapes adds no weight bytes");
            String report = r.memoryReport();
            assertTrue(report.contains("90,261,504 bytes") && report.contains("3 shapes + weights once"), report);
        }
    }
}
