package dev.rlx.llm.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.kv.KvStorage;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link LlamaModel} against the float64 {@link ReferenceLlama} on synthetic models of each variant the decoder
 * supports: the logits after a 13-token prompt and after each of 8 greedy tokens agree within
 * {@link #TOLERANCE} (absolute, on logits of magnitude about 1-4; observed 1e-6 for F32 weights, 1.5e-5 for the
 * tied F16 one), and the greedy tokens are the reference's; quantised (Q8_0, Q4_0) models are compared with the
 * reference over their dequantised blocks, and 64 greedy tokens of each are the reference's.
 */
class LlamaModelTest {
    /** Largest |RLX - float64| logit difference allowed (F32 KV cache; F16 weights are exact in f32). */
    static final double TOLERANCE = 5e-5;

    static LlamaModel.Options exact() {
        return LlamaModel.Options.defaults().withThreads(2).withKvStorage(KvStorage.F32).withMaxSequences(4)
                .withMaxBatchTokens(64).withContextLength(128);
    }

    static Stream<Arguments> variants() {
        return Stream.of(
                Arguments.of("small MHA", new SyntheticLlama("llama", "spm", 500, 64, 2, 2, 2, 176, 512,
                        GgmlType.F32, false, 0, 1)),
                Arguments.of("GQA 4/2", SyntheticLlama.tiny(GgmlType.F32)),
                Arguments.of("GQA 8/2, 3 layers", new SyntheticLlama("llama", "spm", 700, 128, 3, 8, 2, 256, 512,
                        GgmlType.F32, false, 0, 3)),
                Arguments.of("qwen2 biases", new SyntheticLlama("qwen2", "qwen2", 300, 128, 2, 4, 2, 352, 512,
                        GgmlType.F32, false, 0, 4)),
                Arguments.of("tied embeddings F16", new SyntheticLlama("llama", "llama-bpe", 300, 128, 2, 4, 2,
                        352, 512, GgmlType.F16, true, 0, 5)),
                Arguments.of("llama3 rope scaling", new SyntheticLlama("llama", "spm", 600, 128, 2, 4, 2, 352,
                        512, GgmlType.F32, false, 8, 6)),
                Arguments.of("F16 weights", new SyntheticLlama("llama", "spm", 600, 128, 2, 4, 2, 352, 512,
                        GgmlType.F16, false, 0, 7)),
                // quantised matrices: the reference runs on the same blocks dequantised, so only f32 arithmetic
                // separates the two (QuantMatMul reads the blocks in place)
                Arguments.of("Q8_0 weights", new SyntheticLlama("llama", "llama-bpe", 300, 128, 2, 4, 2, 352, 512,
                        GgmlType.Q8_0, false, 0, 8)),
                Arguments.of("Q4_0 weights, GQA 8/2", new SyntheticLlama("llama", "spm", 600, 256, 2, 8, 2, 512,
                        512, GgmlType.Q4_0, false, 0, 9)),
                Arguments.of("Q8_0 qwen2", new SyntheticLlama("qwen2", "qwen2", 300, 128, 2, 4, 2, 352, 512,
                        GgmlType.Q8_0, true, 0, 10)),
                // Qwen3: RMSNorm of each q/k head before RoPE, and heads wider than width / heads (attention
                // projects 128 -> 256 and back, as Qwen3-0.6B's 1024 -> 2048)
                Arguments.of("qwen3 head norms, heads of 64", new SyntheticLlama("qwen3", "qwen2", 300, 128, 2, 4,
                        2, 352, 512, GgmlType.F32, false, 0, 11, 64)),
                Arguments.of("Q8_0 qwen3 tied", new SyntheticLlama("qwen3", "qwen2", 300, 128, 2, 4, 2, 352, 512,
                        GgmlType.Q8_0, true, 0, 12)));
    }

    static int[] prompt(int n, int vocab, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = r.nextInt(vocab);
        }
        return p;
    }

    static double maxDiff(float[] a, double[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) {
            m = Math.max(m, Math.abs(a[i] - b[i]));
        }
        return m;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void logitsMatchFloat64Reference(String name, SyntheticLlama spec, @TempDir Path dir) {
        Path p = dir.resolve("m.gguf");
        try {
            spec.write(p);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        int steps = 8;
        try (GgufFile f = GgufFile.open(p); LlamaModel m = LlamaModel.load(f, exact())) {
            int[] prompt = prompt(13, m.vocabSize(), 11);
            GreedyLoop run = GreedyLoop.run(m, 1, prompt, steps, 5);
            ReferenceLlama ref = new ReferenceLlama(f, m.vocabSize(), 64);
            double[] want = null;
            for (int t : prompt) {
                want = ref.next(t);
            }
            double worst = 0;
            for (int i = 0; i <= steps; i++) {
                double d = maxDiff(run.logits[i], want);
                worst = Math.max(worst, d);
                assertTrue(d <= TOLERANCE, name + ": step " + i + " differs by " + d);
                if (i < steps) {
                    assertEquals(ReferenceLlama.argmax(want), run.tokens[i], name + ": greedy token " + i);
                    want = ref.next(run.tokens[i]);
                }
            }
            System.out.printf("%s: max |RLX - float64| logit difference %.3g%n", name, worst);
        }
    }

    /** The rescaled RoPE matters at these positions, so the scaling test above can fail. */
    @Test
    void ropeScalingChangesTheLogits(@TempDir Path dir) throws Exception {
        SyntheticLlama scaled = new SyntheticLlama("llama", "spm", 600, 128, 2, 4, 2, 352, 512, GgmlType.F32, false, 8,
                6);
        SyntheticLlama plain = new SyntheticLlama("llama", "spm", 600, 128, 2, 4, 2, 352, 512, GgmlType.F32, false, 0,
                6);
        scaled.write(dir.resolve("a.gguf"));
        plain.write(dir.resolve("b.gguf"));
        try (LlamaModel a = LlamaModel.open(dir.resolve("a.gguf"), exact());
             LlamaModel b = LlamaModel.open(dir.resolve("b.gguf"), exact())) {
            int[] prompt = prompt(40, a.vocabSize(), 2);
            float[] x = GreedyLoop.run(a, 1, prompt, 0, 40).logits[0];
            float[] y = GreedyLoop.run(b, 1, prompt, 0, 40).logits[0];
            double d = 0;
            for (int i = 0; i < x.length; i++) {
                d = Math.max(d, Math.abs(x[i] - y[i]));
            }
            assertTrue(d > 20 * TOLERANCE, "llama3 scaling moved the logits by only " + d);
        }
    }

    /** Prefill in chunks of 1, 3 and 7 tokens gives the one-shot prefill's logits, and the same greedy tokens. */
    @Test
    void chunkedPrefillEqualsOneShot(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("m.gguf");
        SyntheticLlama.tiny(GgmlType.F32).write(p);
        try (LlamaModel m = LlamaModel.open(p, exact())) {
            int[] prompt = prompt(21, m.vocabSize(), 5);
            GreedyLoop whole = GreedyLoop.run(m, 1, prompt, 6, 64);
            for (int chunk : new int[] {1, 3, 7}) {
                GreedyLoop parts = GreedyLoop.run(m, 2, prompt, 6, chunk);
                assertArrayEquals(whole.tokens, parts.tokens, "chunk " + chunk);
                for (int i = 0; i < whole.logits.length; i++) {
                    double d = 0;
                    for (int j = 0; j < whole.logits[i].length; j++) {
                        d = Math.max(d, Math.abs(whole.logits[i][j] - parts.logits[i][j]));
                    }
                    assertTrue(d <= 1e-5, "chunk " + chunk + " step " + i + " differs by " + d);
                }
            }
        }
    }

    /**
     * 64 greedy tokens of a Q8_0 and a Q4_0 model (random weights, GQA) are those of the float64 reference over the
     * same dequantised blocks: the decode path (one row of x, the blocks decoded in registers) as well as the
     * prefill's paired rows.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(value = GgmlType.class, names = {"Q8_0", "Q4_0"})
    void quantisedGreedyStreamEqualsFloat64Reference(GgmlType type, @TempDir Path dir) throws Exception {
        Path p = dir.resolve("m.gguf");
        new SyntheticLlama("llama", "llama-bpe", 300, 128, 2, 4, 2, 352, 512, type, false, 0, 21).write(p);
        int steps = 64;
        try (GgufFile f = GgufFile.open(p); LlamaModel m = LlamaModel.load(f, exact())) {
            int[] prompt = prompt(9, m.vocabSize(), 4);
            GreedyLoop run = GreedyLoop.run(m, 1, prompt, steps, 9);
            ReferenceLlama ref = new ReferenceLlama(f, m.vocabSize(), 128);
            int[] want = ref.greedy(prompt, steps);
            assertArrayEquals(want, run.tokens, type + ": greedy stream (margins "
                    + java.util.Arrays.toString(ref.margins) + ")");
        }
    }
}
