package dev.rlx.onnx.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.nio.LongBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * all-MiniLM-L6-v2 on RLX against ONNX Runtime's CPU provider on the same random token ids: the fp32 model's
 * {@code last_hidden_state} within 1e-4 (max absolute difference), the int8 model's pooled embeddings within
 * ONNX Runtime's own numerical spread (see {@link #int8_embeddings_asCloseToOnnxRuntimeAsItsOwnUnoptimisedGraph}).
 */
class MiniLmParityTest {
    private static Session session;
    private static OrtEnvironment env;

    @BeforeAll
    static void open() {
        session = new Session(Device.CPU);
        env = OrtEnvironment.getEnvironment();
    }

    @AfterAll
    static void close() {
        session.close();
    }

    /** Inputs of {@code batch} sequences of {@code seq} ids: [CLS], random words, [SEP]; the last row padded to half. */
    static Map<String, Tensor> randomInputs(long seed, int batch, int seq) {
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

    /** ONNX Runtime's {@code last_hidden_state}, with its default graph optimisations or none. */
    static float[] onnxRuntime(byte[] model, Map<String, Tensor> in, boolean optimise) throws OrtException {
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setIntraOpNumThreads(1);
            if (!optimise) {
                o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.NO_OPT);
            }
            try (OrtSession s = env.createSession(model, o)) {
                Map<String, OnnxTensor> feed = new LinkedHashMap<>();
                try {
                    for (var e : in.entrySet()) {
                        int[] d = e.getValue().shape().dims();
                        long[] ids = new long[(int) e.getValue().shape().elementCount()];
                        for (int i = 0; i < ids.length; i++) {
                            ids[i] = (long) e.getValue().getDouble(i);
                        }
                        feed.put(e.getKey(), OnnxTensor.createTensor(env, LongBuffer.wrap(ids), new long[] {d[0], d[1]}));
                    }
                    try (OrtSession.Result r = s.run(feed)) {
                        OnnxTensor t = (OnnxTensor) r.get("last_hidden_state").orElseThrow();
                        float[] out = new float[(int) t.getInfo().getNumElements()];
                        t.getFloatBuffer().get(out);
                        return out;
                    }
                } finally {
                    feed.values().forEach(OnnxTensor::close);
                }
            }
        }
    }

    static float[] rlx(OnnxModel model, Map<String, Tensor> in) {
        try (OnnxRunner r = new OnnxRunner(model, session)) {
            return r.run(in).get("last_hidden_state").toFloatArray();
        }
    }

    static long[] mask(Map<String, Tensor> in) {
        Tensor m = in.get("attention_mask");
        long[] v = new long[(int) m.shape().elementCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (long) m.getDouble(i);
        }
        return v;
    }

    @ParameterizedTest(name = "seq {0}")
    @ValueSource(ints = {16, 128})
    void fp32_lastHiddenState_within1e4OfOnnxRuntime(int seq) throws OrtException {
        int batch = seq == 16 ? 2 : 1; // the short case also checks a padded row
        Map<String, Tensor> in = randomInputs(seq, batch, seq);
        float[] ort = onnxRuntime(MiniLm.FP32.modelBytes(), in, true);
        float[] ours = rlx(MiniLm.FP32.model(), in);
        assertEquals(batch * seq * MiniLm.DIM, ours.length);
        double max = 0;
        for (int i = 0; i < ours.length; i++) {
            max = Math.max(max, Math.abs(ours[i] - ort[i]));
        }
        System.out.printf("MiniLM fp32 seq %d: max |rlx - ort| = %.3g%n", seq, max);
        assertTrue(max <= 1e-4, "max abs difference " + max);
    }

    /**
     * The int8 model quantizes every activation tensor at run time with one scale, so a 1-ulp difference in a
     * float op before it can move a value across a rounding boundary, and the changed step spreads through
     * the later layers. ONNX Runtime's own optimised graph (fused LayerNorm, Gelu, DynamicQuantizeMatMul)
     * therefore differs from its unoptimised one by cosine 0.990 to 1.0 on random ids. RLX must be as close
     * to ONNX Runtime's default output as ONNX Runtime's unoptimised graph is (within 0.005, capped at 0.999),
     * and never below 0.985 (the int8 model itself is only ~0.98 from the fp32 one).
     */
    @ParameterizedTest(name = "seq {0}")
    @ValueSource(ints = {16, 128})
    void int8_embeddings_asCloseToOnnxRuntimeAsItsOwnUnoptimisedGraph(int seq) throws OrtException {
        for (long seed = 1; seed <= 2; seed++) {
            Map<String, Tensor> in = randomInputs(seed, 1, seq);
            float[] ort = embedding(onnxRuntime(MiniLm.INT8.modelBytes(), in, true), in, seq);
            float[] ortPlain = embedding(onnxRuntime(MiniLm.INT8.modelBytes(), in, false), in, seq);
            float[] ours = embedding(rlx(MiniLm.INT8.model(), in), in, seq);
            double cos = SentenceEmbedder.cosine(ours, ort);
            double ortSelf = SentenceEmbedder.cosine(ortPlain, ort);
            System.out.printf("MiniLM int8 seq %d seed %d: cosine(rlx, ort) = %.6f, cosine(ort unoptimised, ort) = %.6f%n",
                    seq, seed, cos, ortSelf);
            assertTrue(cos > 0.985, "seed " + seed + ": cosine " + cos);
            assertTrue(cos >= Math.min(0.999, ortSelf) - 0.005, "seed " + seed + ": cosine " + cos
                    + " while ONNX Runtime's unoptimised graph is at " + ortSelf);
        }
    }

    /**
     * Real text, short and long, through the tokenizer. Short texts match ONNX Runtime to cosine 1.000000; the
     * 126-token one is at 0.9987 to 0.9991 depending on which fusions RLX applies (the int8 model's run-time
     * quantizers amplify last-bit differences, see below), so the bar here is 0.998.
     */
    @ParameterizedTest(name = "text {index}")
    @ValueSource(strings = {
        "A man is playing a guitar on the street.",
        "The quick brown fox jumps over the lazy dog.",
        "RLX compiles a compute graph once and runs it with no allocation per call on the CPU, and the same graph "
                + "can be routed to a GPU when the cost model says it pays. Sentence embeddings from a BERT-style "
                + "encoder are a good end-to-end check: tokenization, embeddings, six layers of attention and "
                + "feed-forward blocks, layer norms, and mean pooling over the attention mask must all agree with "
                + "ONNX Runtime to a few parts in ten thousand, in fp32 and in the dynamically quantized int8 model."})
    void int8_realText_cosineAbove0999(String text) throws OrtException {
        int[] ids = MiniLm.INT8.tokenizer().encode(text).ids();
        int seq = ids.length;
        long[] id = new long[seq];
        long[] mask = new long[seq];
        for (int i = 0; i < seq; i++) {
            id[i] = ids[i];
            mask[i] = 1;
        }
        Map<String, Tensor> in = new LinkedHashMap<>();
        in.put("input_ids", Tensor.of(id, 1, seq));
        in.put("attention_mask", Tensor.of(mask, 1, seq));
        in.put("token_type_ids", Tensor.of(new long[seq], 1, seq));
        float[] ort = embedding(onnxRuntime(MiniLm.INT8.modelBytes(), in, true), in, seq);
        float[] ortPlain = embedding(onnxRuntime(MiniLm.INT8.modelBytes(), in, false), in, seq);
        float[] ours = embedding(rlx(MiniLm.INT8.model(), in), in, seq);
        double cos = SentenceEmbedder.cosine(ours, ort);
        System.out.printf("MiniLM int8 text of %d tokens: cosine(rlx, ort) = %.6f, cosine(ort unoptimised, ort) = %.6f%n",
                seq, cos, SentenceEmbedder.cosine(ortPlain, ort));
        assertTrue(cos > (seq <= 32 ? 0.999 : 0.998), seq + " tokens: cosine " + cos);
    }

    private static float[] embedding(float[] hidden, Map<String, Tensor> in, int seq) {
        return SentenceEmbedder.pool(hidden, mask(in), 1, seq, MiniLm.DIM)[0];
    }
}
