package dev.rlx.llm.reference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.gguf.GgufTensor;
import dev.rlx.llm.kv.KvSequence;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.kv.ScheduledBatch;
import dev.rlx.llm.model.LlamaModel;
import dev.rlx.llm.model.SyntheticLlama;
import dev.rlx.llm.tokenizer.Tokenizer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Q8_0 and Q4_0 models (random weights, GQA) against llama.cpp on the same file, teacher-forced: after each of
 * several prompts, RLX's logits against llama.cpp's, and against RLX's own run of the same weights in F32.
 *
 * <p>The binding gives no logits, so llama.cpp's are rebuilt from its last-token hidden state (embedding mode,
 * pooling LAST: the output norm's result, which the server L2-normalises) times the dequantised output matrix in
 * float64, with the one scale the normalisation removed fitted by least squares. The two cannot be equal:
 * llama.cpp rounds the activations to 8-bit blocks before each quantised matmul, RLX multiplies f32 activations by
 * the blocks. Differences are relative to the largest |logit| of the step: observed about 1% against llama.cpp for
 * both formats, against 1% (Q8_0) and 12-26% (Q4_0) between the quantised and the F32 weights, so the llama.cpp
 * bound of 2% sits far below what a wrong decoder or the wrong weights would give.
 */
class QuantisedParityTest {
    static final List<String> PROMPTS = List.of("The quick brown fox", "Once upon a time, there was",
            "hello world", "In 1987 the committee met again and", "a b c d e f g", "Quantised weights stay quantised.");

    @ParameterizedTest(name = "{0}")
    @CsvSource({"Q8_0, 0.02, 0.03", "Q4_0, 0.02, 0.4"})
    void teacherForcedLogitsMatchLlamaCppAndF32(GgmlType type, double vsLlamaCpp, double vsF32, @TempDir Path dir)
            throws Exception {
        Path model = dir.resolve("m.gguf");
        Path f32 = dir.resolve("f32.gguf");
        spec(type).write(model);
        spec(GgmlType.F32).write(f32);
        List<float[]> hidden = LlamaCpp.lastHidden(model, PROMPTS, dir);
        assertEquals(PROMPTS.size(), hidden.size());
        List<float[]> rlx = lastLogits(model);
        List<float[]> rlxF32 = lastLogits(f32);
        double[][] out;
        try (GgufFile f = GgufFile.open(model)) {
            out = outputMatrix(f);
        }
        double worstCpp = 0;
        double worstF32 = 0;
        for (int t = 0; t < PROMPTS.size(); t++) {
            double[] z = times(out, hidden.get(t));
            float[] l = rlx.get(t);
            double s = dot(l, z) / dot(z, z);
            double scale = maxAbs(l);
            double dCpp = 0;
            double dF32 = 0;
            for (int i = 0; i < l.length; i++) {
                dCpp = Math.max(dCpp, Math.abs(l[i] - s * z[i]) / scale);
                dF32 = Math.max(dF32, Math.abs(l[i] - rlxF32.get(t)[i]) / scale);
            }
            assertTrue(dCpp <= vsLlamaCpp, type + " '" + PROMPTS.get(t) + "': RLX vs llama.cpp " + dCpp);
            assertTrue(dF32 <= vsF32, type + " '" + PROMPTS.get(t) + "': RLX vs its F32 run " + dF32);
            worstCpp = Math.max(worstCpp, dCpp);
            worstF32 = Math.max(worstF32, dF32);
        }
        System.out.printf("%s: max relative logit difference vs llama.cpp %.2e, vs RLX F32 weights %.2e%n", type,
                worstCpp, worstF32);
    }

    static SyntheticLlama spec(GgmlType type) {
        return new SyntheticLlama("llama", "llama-bpe", 300, 128, 2, 4, 2, 352, 512, type, false, 0, 7);
    }

    /** RLX's logits after prefilling each prompt (F32 KV cache). */
    private static List<float[]> lastLogits(Path model) {
        List<float[]> rows = new ArrayList<>();
        try (GgufFile f = GgufFile.open(model); LlamaModel m = LlamaModel.load(f, LlamaModel.Options.defaults()
                .withThreads(2).withKvStorage(KvStorage.F32).withMaxSequences(1).withContextLength(128))) {
            Tokenizer tk = Tokenizer.fromGguf(f.metadata());
            for (String p : PROMPTS) {
                int[] ids = tk.encode(p);
                KvSequence s = m.cache().newSequence(1, ids.length);
                float[] logits = new float[m.vocabSize()];
                int start = m.cache().append(s, ids.length);
                m.forward(new ScheduledBatch(0, List.of(new ScheduledBatch.Entry(1, s, true, start, ids, true)),
                        List.of()), logits);
                m.cache().free(s);
                rows.add(logits);
            }
        }
        return rows;
    }

    /** output.weight dequantised, (vocab, dim). */
    private static double[][] outputMatrix(GgufFile f) {
        GgufTensor t = f.find("output.weight");
        int dim = (int) t.dim(0);
        int vocab = (int) t.dim(1);
        float[] rows = new float[dim * vocab];
        t.decodeRows(0, vocab, rows, 0);
        double[][] w = new double[vocab][dim];
        for (int v = 0; v < vocab; v++) {
            for (int i = 0; i < dim; i++) {
                w[v][i] = rows[v * dim + i];
            }
        }
        return w;
    }

    private static double[] times(double[][] w, float[] h) {
        double[] z = new double[w.length];
        for (int v = 0; v < w.length; v++) {
            double s = 0;
            for (int i = 0; i < h.length; i++) {
                s += w[v][i] * h[i];
            }
            z[v] = s;
        }
        return z;
    }

    private static double dot(float[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    private static double maxAbs(float[] x) {
        double m = 0;
        for (float v : x) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }
}
