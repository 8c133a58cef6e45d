package dev.rlx.llm.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.limits.Limits;
import dev.rlx.llm.gguf.GgufArray;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.gguf.GgufValueType;
import dev.rlx.llm.gguf.GgufWriter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both tokenizer kinds on hand-made vocabularies (merge order, byte fallback, special tokens, pre-tokenizer
 * splits worked out by hand) and on generated ones (decode(encode(s)) == s over a multilingual text set).
 */
class TokenizerTest {
    /** The shared set plus the empty text. */
    static final List<String> TEXTS = concat(TokenizerTestTexts.ALL, List.of(""));

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> r = new ArrayList<>(a);
        r.addAll(b);
        return r;
    }

    static Tokenizer tokenizer(GgufWriter w) {
        byte[] b = w.toBytes();
        GgufFile f = GgufFile.parse(MemorySegment.ofArray(b), "vocab.gguf", Limits.defaults());
        return Tokenizer.fromGguf(f.metadata());
    }

    static Tokenizer spm() {
        GgufWriter w = new GgufWriter();
        SyntheticVocab.writeSpm(w, SyntheticVocab.DEFAULT_CORPUS, 600);
        return tokenizer(w);
    }

    static Tokenizer bpe(String pre) {
        GgufWriter w = new GgufWriter();
        SyntheticVocab.writeBpe(w, SyntheticVocab.DEFAULT_CORPUS, 300, pre);
        return tokenizer(w);
    }

    /** A hand-made vocabulary: tokens with scores and types, the model kind, optional merges. */
    private static Tokenizer hand(String model, String[] tokens, float[] scores, int[] types, String[] merges,
                                  String pre) {
        GgufWriter w = new GgufWriter();
        w.putString("tokenizer.ggml.model", model);
        if (pre != null) {
            w.putString("tokenizer.ggml.pre", pre);
        }
        w.putArray("tokenizer.ggml.tokens", GgufArray.ofStrings(tokens));
        if (scores != null) {
            w.putArray("tokenizer.ggml.scores", GgufArray.ofFloats(scores));
        }
        w.putArray("tokenizer.ggml.token_type", GgufArray.of(GgufValueType.INT32, types));
        if (merges != null) {
            w.putArray("tokenizer.ggml.merges", GgufArray.ofStrings(merges));
        }
        w.putBool("tokenizer.ggml.add_bos_token", model.equals("llama"));
        return tokenizer(w);
    }

    /* ---------------- SentencePiece ---------------- */

    private static Tokenizer tinySpm() {
        List<String> t = new ArrayList<>(List.of("<unk>", "<s>", "</s>", "▁", "a", "b", "ab", "▁a", "<|x|>"));
        List<Integer> ty = new ArrayList<>(List.of(2, 3, 3, 1, 1, 1, 1, 1, 4));
        float[] s = new float[9 + 256];
        s[6] = -1f; // "ab"
        s[7] = -0.5f; // "▁a" scores higher
        for (int b = 0; b < 256; b++) {
            t.add(String.format("<0x%02X>", b));
            ty.add(6);
        }
        return hand("llama", t.toArray(String[]::new), s, ty.stream().mapToInt(Integer::intValue).toArray(), null,
                null);
    }

    @Test
    void spm_highestScorePairMergesFirst() {
        Tokenizer tk = tinySpm();
        // "ab" -> "▁ab": pairs "▁a" (-0.5) and "ab" (-1); "▁a" merges first, then "▁ab" is no token: [▁a, b]
        assertArrayEquals(new int[] {1, 7, 5}, tk.encode("ab"));
        // "bab" -> "▁bab": "▁b" is no token; "ba" neither; "ab" merges: [▁, b, ab]
        assertArrayEquals(new int[] {3, 5, 6}, tk.encode("bab", false, true));
        assertEquals("bab", tk.decode(tk.encode("bab")));
    }

    @Test
    void spm_byteFallbackAndStreaming() {
        Tokenizer tk = tinySpm();
        int[] ids = tk.encode("a🙂", false, true);
        // ▁a, then the four UTF-8 bytes of U+1F642 (F0 9F 99 82) as <0xXX> tokens (ids 9 + byte)
        assertArrayEquals(new int[] {7, 9 + 0xF0, 9 + 0x9F, 9 + 0x99, 9 + 0x82}, ids);
        TokenStream s = tk.stream();
        assertEquals("a", s.next(ids[0]));
        assertEquals("", s.next(ids[1]));
        assertEquals("", s.next(ids[2]));
        assertEquals("", s.next(ids[3]));
        assertEquals("🙂", s.next(ids[4]));
        // a dangling lead byte at the end becomes U+FFFD
        TokenStream t = tk.stream();
        assertEquals("", t.next(9 + 0xF0));
        assertEquals("\uFFFD", t.finish());
    }

    @Test
    void spm_specialTokens() {
        Tokenizer tk = tinySpm();
        // control "<s>" in the text: recognised with parseSpecial, a space prefix after it
        assertArrayEquals(new int[] {1, 7, 1, 7}, tk.encode("a<s>a", true, true));
        int[] raw = tk.encode("<s>", false, false);
        assertTrue(raw.length > 1 && raw[0] != 1, "<s> as text is bytes/chars");
        // user-defined tokens are split out even without parseSpecial, and decode to their text
        int[] u = tk.encode("a<|x|>b", false, false);
        assertArrayEquals(new int[] {7, 8, 3, 5}, u);
        assertEquals("a<|x|> b", tk.decode(u));
    }

    @ParameterizedTest
    @ValueSource(strings = {"spm", "llama-bpe", "qwen2"})
    void roundTrip_multilingual(String kind) {
        Tokenizer tk = kind.equals("spm") ? spm() : bpe(kind);
        for (String s : TEXTS) {
            int[] ids = tk.encode(s, true, false);
            assertEquals(s, tk.decode(ids), kind + ": " + s);
            // streamed piece by piece gives the same text
            TokenStream st = tk.stream();
            StringBuilder sb = new StringBuilder();
            for (int id : ids) {
                String piece = st.next(id);
                assertTrue(piece.codePoints().noneMatch(c -> c == 0xFFFD), "no replacement char mid-stream");
                sb.append(piece);
            }
            assertEquals(s, sb.append(st.finish()).toString());
        }
        // merges do something: the corpus the vocabulary was made from takes well under a token per byte
        String corpus = SyntheticVocab.DEFAULT_CORPUS;
        int n = tk.encode(corpus, false, false).length;
        int bytes = corpus.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        assertTrue(n < bytes * 4 / 5, kind + ": " + n + " tokens for " + bytes + " bytes");
        assertEquals(corpus, tk.decode(tk.encode(corpus, false, false)));
    }

    /* ---------------- BPE ---------------- */

    @Test
    void preTokenizer_llama3AndQwen2Splits() {
        assertEquals(List.of("Hello", " ", " world", " ", "123", "45"),
                PreTokenizer.LLAMA3.split("Hello  world 12345"));
        assertEquals(List.of("Hello", " ", " world", " ", "1", "2", "3", "4", "5"),
                PreTokenizer.QWEN2.split("Hello  world 12345"));
        assertEquals(List.of("It", "'s", " a", " test", "!\n\n", "def", "(x", "):\n", "   ", " return"),
                PreTokenizer.LLAMA3.split("It's a test!\n\ndef(x):\n    return"));
        assertEquals(List.of("你好", "，世界"), PreTokenizer.LLAMA3.split("你好，世界"));
        assertThrows(TokenizerException.class, () -> PreTokenizer.of("mystery"));
    }

    @Test
    void bpe_lowestRankMergesFirst_andIgnoreMerges() {
        // byte-level: "a" "b" "c" are themselves. Merges: rank 0 "b c", rank 1 "a b", rank 2 "a bc".
        // "abc": pairs ab (1), bc (0): bc first, then a+bc (2): [abc].
        List<String> t = new ArrayList<>(List.of("a", "b", "c", "bc", "ab", "abc", "<|eot|>"));
        int[] types = {1, 1, 1, 1, 1, 1, 3};
        Tokenizer tk = hand("gpt2", t.toArray(String[]::new), null, types, new String[] {"b c", "a b", "a bc"},
                "qwen2");
        assertArrayEquals(new int[] {5}, tk.encode("abc"));
        // without "a bc" the result would be [a, bc]; "abab": ab (1) twice, "ab ab" no rank: [ab, ab]
        assertArrayEquals(new int[] {4, 4}, tk.encode("abab"));
        assertArrayEquals(new int[] {4, 6, 2}, tk.encode("ab<|eot|>c"));
        assertEquals("abc", tk.decode(tk.encode("ab<|eot|>c")));
        // llama-bpe: a word that is a token as a whole skips merging. "ab" + "c" vocabulary with no merges
        Tokenizer l3 = hand("gpt2", new String[] {"a", "b", "c", "abc"}, null, new int[] {1, 1, 1, 1}, new String[0],
                "llama-bpe");
        assertArrayEquals(new int[] {3}, l3.encode("abc"));
        Tokenizer q = hand("gpt2", new String[] {"a", "b", "c", "abc"}, null, new int[] {1, 1, 1, 1}, new String[0],
                "qwen2");
        assertArrayEquals(new int[] {0, 1, 2}, q.encode("abc"));
    }

    @Test
    void bpe_bosRules() {
        Tokenizer l3 = bpe("llama-bpe");
        int bos = l3.vocabulary().bos();
        assertEquals("<|begin_of_text|>", l3.vocabulary().token(bos));
        assertEquals(bos, l3.encode("hi")[0]);
        int[] withSpecial = l3.encode("<|start_header_id|>user<|end_header_id|>", false, true);
        assertEquals("<|start_header_id|>", l3.vocabulary().token(withSpecial[0]));
        Tokenizer qw = bpe("qwen2");
        assertTrue(qw.encode("hi")[0] != qw.vocabulary().bos(), "qwen2 adds no BOS");
        assertTrue(qw.vocabulary().isEndOfGeneration(qw.vocabulary().id("<|im_end|>")));
    }

    /* ---------------- metadata errors ---------------- */

    @Test
    void badMetadata_typedErrors() {
        GgufWriter w = new GgufWriter();
        w.putString("tokenizer.ggml.model", "llama");
        w.putArray("tokenizer.ggml.tokens", GgufArray.ofStrings("a", "b"));
        w.putU32("tokenizer.ggml.bos_token_id", 7);
        TokenizerException e = assertThrows(TokenizerException.class, () -> tokenizer(w));
        assertTrue(e.getMessage().contains("bos_token_id = 7"), e.getMessage());
        GgufWriter w2 = new GgufWriter();
        w2.putString("tokenizer.ggml.model", "wordpiece");
        w2.putArray("tokenizer.ggml.tokens", GgufArray.ofStrings("a"));
        assertThrows(TokenizerException.class, () -> tokenizer(w2));
        assertThrows(TokenizerException.class, () -> spm().decode(new int[] {100000}));
    }

    /* ---------------- chat templates ---------------- */

    @Test
    void chatTemplates_detectedAndRendered() {
        List<ChatTemplate.Message> chat = List.of(new ChatTemplate.Message("system", "Be brief."),
                new ChatTemplate.Message("user", " Hi "), new ChatTemplate.Message("assistant", "Hello."),
                new ChatTemplate.Message("user", "Bye"));
        assertEquals(ChatTemplate.CHATML, ChatTemplate.detect("...<|im_start|>..."));
        assertEquals(ChatTemplate.LLAMA3, ChatTemplate.detect("<|start_header_id|>x<|end_header_id|>"));
        assertEquals(ChatTemplate.LLAMA2, ChatTemplate.detect("{{ '[INST] ' + content }}"));
        assertEquals(null, ChatTemplate.detect("{{ content }}"));
        assertEquals("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n Hi <|im_end|>\n"
                + "<|im_start|>assistant\nHello.<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n",
                ChatTemplate.CHATML.render(chat, true, null));
        assertEquals("<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
                + "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\nHello.<|eot_id|>"
                + "<|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\n", ChatTemplate.LLAMA3.render(chat, true, null));
        String l2 = "{{ bos_token + '[INST] ' + content.strip() }} <<SYS>>";
        assertEquals("[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]Hello.</s><s>[INST] Bye [/INST]",
                ChatTemplate.LLAMA2.render(chat, true, l2));
        // the rendered ChatML text tokenizes with its markers as single tokens
        Tokenizer qw = bpe("qwen2");
        int[] ids = qw.encode(ChatTemplate.CHATML.render(chat, true, null), false, true);
        assertEquals(qw.vocabulary().id("<|im_start|>"), ids[0]);
        assertEquals(ChatTemplate.CHATML, ChatTemplate.detect(
                GgufFile.parse(MemorySegment.ofArray(qwenWriter().toBytes()), "q", Limits.defaults()).metadata()
                        .getString("tokenizer.chat_template")));
    }

    private static GgufWriter qwenWriter() {
        GgufWriter w = new GgufWriter();
        SyntheticVocab.writeBpe(w, SyntheticVocab.DEFAULT_CORPUS, 50, "qwen2");
        return w;
    }
}
