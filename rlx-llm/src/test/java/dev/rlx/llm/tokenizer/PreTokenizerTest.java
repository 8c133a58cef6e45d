package dev.rlx.llm.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pre-tokenizers' splits, written out from llama.cpp's regex lists: a family with several regexes applies
 * them in turn, each splitting the words the one before made. The splits always cover the text exactly.
 */
class PreTokenizerTest {
    @Test
    void smolLm_splitsEveryDigit_thenGpt2Words() {
        // SmolLM's "Hello world! 123" is 7 tokens in llama.cpp: Hello| world|!| |1|2|3
        assertEquals(List.of("Hello", " world", "!", " ", "1", "2", "3"),
                PreTokenizer.of("smollm").split("Hello world! 123"));
        assertSame(PreTokenizer.DIGITS_GPT2, PreTokenizer.of("starcoder"));
    }

    @Test
    void gpt2_keepsDigitRunsWithTheirSpace() {
        assertEquals(List.of("Hello", " world", "!", " 123"), PreTokenizer.of("gpt-2").split("Hello world! 123"));
        assertSame(PreTokenizer.GPT2, PreTokenizer.of("phi-2"));
    }

    @Test
    void defaultFamily_appliesItsFourRegexesInTurn() {
        // punctuation runs (and + < = > ^ ~ |), GPT-2's words, digit runs, then three ASCII digits at a time
        assertEquals(List.of("a", "+", "b", " ", "123", "4", "."), PreTokenizer.of("default").split("a+b 1234."));
        assertSame(PreTokenizer.DEFAULT, PreTokenizer.of(""));
    }

    @Test
    void everyFamily_coversTheTextExactly() {
        String text = "It's 2024:  naïve café, 東京 🚀\n\tx = y+12345;  ";
        for (PreTokenizer p : PreTokenizer.values()) {
            List<String> words = p.split(text);
            assertEquals(text, String.join("", words), p.name());
            assertTrue(words.stream().noneMatch(String::isEmpty), p.name() + ": " + words);
        }
    }

    @Test
    void unknownFamily_isATypedError() {
        TokenizerException e = assertThrows(TokenizerException.class, () -> PreTokenizer.of("no-such-pre"));
        assertTrue(e.getMessage().contains("'no-such-pre'"), e.getMessage());
    }
}
