package dev.rlx.llm.reference;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.kv.KvSequence;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.kv.ScheduledBatch;
import dev.rlx.llm.model.LlamaModel;
import dev.rlx.llm.model.ReferenceLlama;
import dev.rlx.llm.model.SyntheticLlama;
import dev.rlx.llm.tokenizer.Tokenizer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The float64 reference decoder ({@link ReferenceLlama}) against llama.cpp on synthetic GQA models: the text of
 * 64 greedy tokens is the same (invalid UTF-8 aside, see below). This pins down what the model files mean (tensor
 * layout, RoPE mode, norms, tied embeddings, Qwen2 biases); RLX's own decoder is then held to the same text.
 */
class GreedyParityTest {
    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"llama, spm, F32, false", "llama, llama-bpe, F16, true", "qwen2, qwen2, F32, false"})
    void referenceGreedyText_equalsLlamaCpp(String arch, String vocab, GgmlType type, boolean tied,
                                            @TempDir Path dir) throws Exception {
        SyntheticLlama spec = new SyntheticLlama(arch, vocab, vocab.equals("spm") ? 600 : 300, 128, 2, 4, 2, 352,
                512, type, tied, 0, 7);
        Path model = dir.resolve("m.gguf");
        spec.write(model);
        String prompt = "The quick brown fox";
        int n = 64;
        String want = LlamaCpp.generate(model, prompt, n, dir);
        try (GgufFile f = GgufFile.open(model)) {
            Tokenizer tk = Tokenizer.fromGguf(f.metadata());
            ReferenceLlama ref = new ReferenceLlama(f, tk.vocabulary().size(), 256);
            int[] ids = ref.greedy(tk.encode(prompt), n, endOfGeneration(tk));
            assertSameText(want, tk, ids, arch + "/" + vocab + "/" + type + " float64 reference", ref.margins);
        }
    }

    /**
     * RLX's own decoder ({@link LlamaModel}: prefill, paged KV cache, decode graphs; F32 KV cache) streams the
     * same 64 greedy tokens' text as llama.cpp, for F32 and F16 weights.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"llama, spm, F32, false", "llama, llama-bpe, F16, true", "qwen2, qwen2, F32, false",
            "llama, spm, F16, false"})
    void rlxGreedyText_equalsLlamaCpp(String arch, String vocab, GgmlType type, boolean tied, @TempDir Path dir)
            throws Exception {
        SyntheticLlama spec = new SyntheticLlama(arch, vocab, vocab.equals("spm") ? 600 : 300, 128, 2, 4, 2, 352,
                512, type, tied, 0, 7);
        Path model = dir.resolve("m.gguf");
        spec.write(model);
        String prompt = "The quick brown fox";
        int n = 64;
        String want = LlamaCpp.generate(model, prompt, n, dir);
        try (GgufFile f = GgufFile.open(model); LlamaModel m = LlamaModel.load(f, LlamaModel.Options.defaults()
                .withThreads(2).withKvStorage(KvStorage.F32).withMaxSequences(1).withContextLength(256))) {
            Tokenizer tk = Tokenizer.fromGguf(f.metadata());
            int[] ids = greedy(m, tk.encode(prompt), n, endOfGeneration(tk));
            assertSameText(want, tk, ids, arch + "/" + vocab + "/" + type + " RLX", null);
        }
    }

    /** The ids llama.cpp's ignore-EOS masks out. */
    private static int[] endOfGeneration(Tokenizer tk) {
        var v = tk.vocabulary();
        return java.util.stream.IntStream.of(v.eos(), v.eot()).filter(i -> i >= 0).toArray();
    }

    /** {@code n} greedy tokens of {@code m} after {@code prompt} (one prefill, then one-token decode steps). */
    private static int[] greedy(LlamaModel m, int[] prompt, int n, int[] banned) {
        KvSequence s = m.cache().newSequence(1, prompt.length + n);
        float[] logits = new float[m.vocabSize()];
        int[] out = new int[n];
        int[] fed = prompt;
        for (int i = 0; i < n; i++) {
            int start = m.cache().append(s, fed.length);
            m.forward(new ScheduledBatch(i, List.of(new ScheduledBatch.Entry(1, s, i == 0, start, fed, true)),
                    List.of()), logits);
            for (int b : banned) {
                logits[b] = Float.NEGATIVE_INFINITY;
            }
            int best = 0;
            for (int j = 1; j < logits.length; j++) {
                if (logits[j] > logits[best]) {
                    best = j;
                }
            }
            out[i] = best;
            fed = new int[] {best};
        }
        m.cache().free(s);
        return out;
    }

    /** The text of {@code ids} as llama.cpp streams it equals llama.cpp's {@code want}. */
    private static void assertSameText(String want, Tokenizer tk, int[] ids, String label, double[] margins) {
        int n = ids.length;
        String got = asStreamedByLlamaCpp(tk, ids);
        // Random weights pick byte-fragment tokens; llama.cpp's server and Java replace invalid UTF-8 with
        // different numbers of U+FFFD, so those are dropped from both sides before comparing.
        String w = want.replace("\uFFFD", "");
        String g = got.replace("\uFFFD", "");
        int agree = 0;
        while (agree < n && w.startsWith(decodeContinuation(tk, Arrays.copyOf(ids, agree + 1))
                .replace("\uFFFD", ""))) {
            agree++;
        }
        StringBuilder tail = new StringBuilder();
        for (int i = Math.max(0, agree - 2); i < n; i++) {
            tail.append(ids[i]).append('=').append(java.util.HexFormat.of().formatHex(tk.piece(ids[i], false)))
                    .append(' ');
        }
        assertEquals(w, g, label + ": the first " + agree + " tokens agree; from there " + tail
                + (margins == null ? "" : "; margins " + Arrays.toString(Arrays.copyOf(margins,
                Math.min(n, agree + 1)))));
    }

    /**
     * What llama.cpp's server streams for {@code ids}: text is held back while the text generated so far ends
     * inside a UTF-8 sequence, and what is still held when generation stops is never sent.
     */
    private static String asStreamedByLlamaCpp(Tokenizer tk, int[] ids) {
        java.io.ByteArrayOutputStream sent = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();
        for (int id : ids) {
            byte[] p = tk.piece(id, false);
            pending.write(p, 0, p.length);
            byte[] b = pending.toByteArray();
            if (!endsIncomplete(b)) {
                sent.write(b, 0, b.length);
                pending.reset();
            }
        }
        return sent.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Whether {@code b} ends with the lead of a multi-byte UTF-8 sequence that is not complete. */
    private static boolean endsIncomplete(byte[] b) {
        for (int back = 1; back <= Math.min(4, b.length); back++) {
            int c = b[b.length - back] & 0xFF;
            if ((c & 0xC0) != 0x80) { // a lead or ASCII byte
                int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
                return need > back;
            }
        }
        return false;
    }

    /** The continuation's text as llama.cpp's server streams it: pieces of each token, no prefix stripping. */
    private static String decodeContinuation(Tokenizer tk, int[] ids) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (int id : ids) {
            byte[] p = tk.piece(id, false);
            b.write(p, 0, p.length);
        }
        return b.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
}
