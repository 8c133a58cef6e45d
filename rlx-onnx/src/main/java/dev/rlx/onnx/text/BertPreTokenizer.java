package dev.rlx.onnx.text;

import java.util.ArrayList;
import java.util.List;

/**
 * BERT's pre-tokenizer (Hugging Face's {@code BertPreTokenizer}): splits normalised text into words at
 * whitespace, which is dropped, and around every punctuation character, which becomes a word of its own.
 * Punctuation is ASCII punctuation (so {@code $ + < = > ^ ` | ~} count) or a Unicode punctuation category.
 */
final class BertPreTokenizer {
    private BertPreTokenizer() {}

    static List<String> split(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (BertNormalizer.isWhitespace(c) || isPunctuation(c)) {
                if (!word.isEmpty()) {
                    words.add(word.toString());
                    word.setLength(0);
                }
                if (!BertNormalizer.isWhitespace(c)) {
                    words.add(Character.toString(c));
                }
            } else {
                word.appendCodePoint(c);
            }
        });
        if (!word.isEmpty()) {
            words.add(word.toString());
        }
        return words;
    }

    static boolean isPunctuation(int c) {
        if (c < 0x80) {
            return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
        }
        return switch (Character.getType(c)) {
            case Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.START_PUNCTUATION,
                 Character.END_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION,
                 Character.OTHER_PUNCTUATION -> true;
            default -> false;
        };
    }
}
