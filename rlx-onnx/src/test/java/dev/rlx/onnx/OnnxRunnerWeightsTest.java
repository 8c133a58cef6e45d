package dev.rlx.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
            long packed = -1;
            for (int seq : new int[] {16, 128, 256}) {
                Map<String, Tensor> out = r.run(tokens(seq));
                assertEquals(seq, out.get("last_hidden_state").shape().dim(1));
                if (onePass == 0) {
                    onePass = r.weights().byteSize();
                }
                if (seq == 128) {
                    packed = r.weights().copyBytes();
                }
            }
            // the matmul weights packed once (RLX_PREPACK_MB's default budget holds them), for both long shapes
            assertTrue(packed > 40_000_000L, "packed copies: " + packed);
            assertEquals(packed, r.weights().copyBytes(), "a second shape packs nothing more: " + r.memoryReport());
            assertEquals(3, r.compiledVariants());
            assertEquals(3, r.weights().users(), "every shape reads the runner's one weight set");
            // all-MiniLM-L6-v2's float initializers above 64 elements: 22.6 M parameters in f32
            assertEquals(90_261_504L, r.weights().byteSize(), r.memoryReport());
            assertEquals(onePass, r.weights().byteSize(), "compiling more shapes adds no weight bytes");
            String report = r.memoryReport();
            assertTrue(report.contains("90,261,504 bytes") && report.contains("3 shapes + weights once + packed once"), report);
        }
    }

    /**
     * Runners of one model on two sessions (two threads, as a Spark executor's tasks) given one set: each weight is
     * uploaded once, both give the bits of a runner with a set of its own, and closing one leaves the set to the
     * other.
     */
    @Test
    void runnersOnTwoSessions_shareOneSet() throws Exception {
        OnnxModel model = MiniLm.FP32.model();
        Map<String, Tensor> in = tokens(24);
        float[] alone;
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             OnnxRunner r = new OnnxRunner(model, s)) {
            alone = r.run(in).get("last_hidden_state").toFloatArray();
        }
        try (Session owner = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             WeightSet shared = owner.newWeightSet("shared");
             Session a = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             Session b = new Session(Device.CPU, CompileOptions.defaults().withThreads(1))) {
            OnnxRunner ra = new OnnxRunner(model, a, OnnxBinding.none(), shared);
            OnnxRunner rb = new OnnxRunner(model, b, OnnxBinding.none(), shared);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<float[]>> outs = new ArrayList<>();
                for (OnnxRunner r : List.of(ra, rb)) { // both compile at once: one uploads, the other waits
                    outs.add(pool.submit(() -> r.run(in).get("last_hidden_state").toFloatArray()));
                }
                for (Future<float[]> f : outs) {
                    assertArrayEquals(alone, f.get(), "a shared set gives the bits of a set of one's own");
                }
            } finally {
                pool.shutdown();
            }
            assertEquals(90_261_504L, shared.byteSize(), "each weight once for both runners");
            assertEquals(2, shared.users());
            ra.close();
            assertEquals(1, shared.users(), "closing a runner leaves the shared set open");
            assertArrayEquals(alone, rb.run(in).get("last_hidden_state").toFloatArray());
            rb.close();
        }
    }
}
