package dev.rlx.onnx.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.onnx.embed.MiniLm;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MiniLM's tokenizer (bert-base-uncased's vocabulary) on sentences whose ids were looked up by hand in its
 * {@code tokenizer.json}; "Using a Transformer network is simple" is also the Hugging Face course's example
 * (chapter 2, "Tokenizers": ids 2478, 1037, 10938, 2121, 2897, 2003, 3722).
 */
class BertTokenizerTest {
    private static BertTokenizer tok;

    @BeforeAll
    static void load() {
        tok = MiniLm.FP32.tokenizer();
    }

    private static void assertIds(String text, String tokens, int... ids) {
        Encoding e = tok.encode(text);
        assertEquals(List.of(tokens.split(" ")), e.tokens(), text);
        assertArrayEquals(ids, e.ids(), text);
        assertArrayEquals(new int[ids.length], e.typeIds());
        int[] ones = new int[ids.length];
        Arrays.fill(ones, 1);
        assertArrayEquals(ones, e.attentionMask());
    }

    @Test
    void encode_punctuationSplitsWords() {
        assertIds("Hello, world!", "[CLS] hello , world ! [SEP]", 101, 7592, 1010, 2088, 999, 102);
        assertIds("The quick brown fox jumps over the lazy dog.",
                "[CLS] the quick brown fox jumps over the lazy dog . [SEP]",
                101, 1996, 4248, 2829, 4419, 14523, 2058, 1996, 13971, 3899, 1012, 102);
    }

    @Test
    void encode_wordPieceContinuations() {
        assertIds("Using a Transformer network is simple", "[CLS] using a transform ##er network is simple [SEP]",
                101, 2478, 1037, 10938, 2121, 2897, 2003, 3722, 102);
        assertIds("unaffable tokenizer embeddings", "[CLS] una ##ffa ##ble token ##izer em ##bed ##ding ##s [SEP]",
                101, 14477, 20961, 3468, 19204, 17629, 7861, 8270, 4667, 2015, 102);
    }

    @Test
    void encode_stripsAccentsAndLowercases() {
        assertIds("Café RÉSUMÉ naïve", "[CLS] cafe resume naive [SEP]", 101, 7668, 13746, 15743, 102);
        assertIds("über straße", "[CLS] uber st ##raße [SEP]", 101, 19169, 2358, 27807, 102);
    }

    @Test
    void encode_cjkCharactersAreWords() {
        assertIds("中国的tokenizer", "[CLS] 中 国 的 token ##izer [SEP]", 101, 1746, 1799, 1916, 19204, 17629, 102);
    }

    @Test
    void encode_asciiSymbolsArePunctuation() {
        assertIds("it's $5 don't", "[CLS] it ' s $ 5 don ' t [SEP]", 101, 2009, 1005, 1055, 1002, 1019, 2123, 1005, 1056, 102);
    }

    @Test
    void encode_unknownWordIsOneUnk() {
        assertIds("Ω≈ç√∫ 💩 x", "[CLS] [UNK] [UNK] x [SEP]", 101, 100, 100, 1060, 102);
        assertIds("a".repeat(101), "[CLS] [UNK] [SEP]", 101, 100, 102); // over max_input_chars_per_word
    }

    @Test
    void encode_cleansControlsAndUnicodeWhitespace() {
        // NUL, U+FFFD and format/control characters (U+200B, U+0085) vanish; Unicode spaces separate words
        assertIds("a\tb\u00a0c\u0000\u200bd\ufffd", "[CLS] a b cd [SEP]", 101, 1037, 1038, 3729, 102);
        assertIds("a\tb\u00a0c\u2003d\u3000e\u0085f", "[CLS] a b c d e ##f [SEP]", 101, 1037, 1038, 1039, 1040, 1041, 2546, 102);
        assertIds("", "[CLS] [SEP]", 101, 102);
    }

    @Test
    void encode_specialTokensInRawText() {
        assertIds("Paris is the [MASK] of France.", "[CLS] paris is the [MASK] of france . [SEP]",
                101, 3000, 2003, 1996, 103, 1997, 2605, 1012, 102);
        assertIds("[mask]", "[CLS] [ mask ] [SEP]", 101, 1031, 7308, 1033, 102); // matched case-sensitively
    }

    @Test
    void encode_truncatesToMaxLength() {
        assertEquals(128, tok.maxLength());
        String text = "word ".repeat(300);
        Encoding e = tok.encode(text);
        assertEquals(128, e.length());
        assertEquals("[CLS]", e.tokens().get(0));
        assertEquals("[SEP]", e.tokens().get(127));
        assertEquals(300, tok.tokenize(text).size());
        Encoding e4 = tok.withMaxLength(4).encode("Hello, world!");
        assertEquals(List.of("[CLS]", "hello", ",", "[SEP]"), e4.tokens());
        assertEquals(302, tok.withMaxLength(512).encode(text).length());
    }

    @Test
    void padTo_appendsMaskedPadding() {
        Encoding e = tok.encode("Hello!").padTo(6, tok.padId(), tok.padToken());
        assertArrayEquals(new int[] {101, 7592, 999, 102, 0, 0}, e.ids());
        assertArrayEquals(new int[] {1, 1, 1, 1, 0, 0}, e.attentionMask());
        assertEquals("[PAD]", e.tokens().get(5));
        assertThrows(IllegalArgumentException.class, () -> e.padTo(3, 0, "[PAD]"));
    }

    @Test
    void withMaxLength_belowTwoIsRejected() {
        TokenizerException e = assertThrows(TokenizerException.class, () -> tok.withMaxLength(1));
        assertTrue(e.getMessage().contains("max length 1"), e.getMessage());
    }

    @Test
    void id_unknownTokenIsNamed() {
        assertEquals(30522, tok.vocabSize());
        TokenizerException e = assertThrows(TokenizerException.class, () -> tok.id("nonexistent-token"));
        assertTrue(e.getMessage().contains("'nonexistent-token'"), e.getMessage());
    }

    private static BertTokenizer parse(String json) {
        return BertTokenizer.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "test.json");
    }

    private static final String TINY = """
            {"normalizer": {"type": "BertNormalizer", "lowercase": true, "strip_accents": null},
             "pre_tokenizer": {"type": "BertPreTokenizer"},
             "post_processor": {"type": "BertProcessing"},
             "truncation": {"max_length": 8},
             "model": {"type": "%s", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                       "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "ab": 4, "##c": 5}}}
            """;

    @Test
    void read_minimalFile() {
        BertTokenizer t = parse(TINY.formatted("WordPiece"));
        assertEquals(8, t.maxLength());
        assertArrayEquals(new int[] {2, 4, 5, 1, 3}, t.encode("ABC x").ids());
    }

    @Test
    void read_otherModelTypeIsRejected() {
        TokenizerException e = assertThrows(TokenizerException.class, () -> parse(TINY.formatted("BPE")));
        assertTrue(e.getMessage().contains("test.json: model.type is BPE"), e.getMessage());
    }

    @Test
    void read_malformedJsonIsNamed() {
        TokenizerException e = assertThrows(TokenizerException.class, () -> parse("{\"model\": {\"vocab\": [1, 2"));
        assertTrue(e.getMessage().startsWith("test.json"), e.getMessage());
        TokenizerException n = assertThrows(TokenizerException.class,
                () -> parse(TINY.formatted("WordPiece").replace("\"ab\": 4", "\"ab\": -4")));
        assertTrue(n.getMessage().contains("model.vocab.ab is -4"), n.getMessage());
    }
}
