package dev.rlx.onnx.text;

import java.text.Normalizer;
import java.util.Locale;

/**
 * BERT's text normaliser, as Hugging Face tokenizers' {@code BertNormalizer} applies it, in its order:
 * clean the text (drop NUL, U+FFFD and control characters; every whitespace character becomes a space), put
 * spaces around CJK ideographs (so each becomes a word), strip accents (NFD, then drop non-spacing marks),
 * lower-case.
 *
 * @param cleanText drop control characters and map whitespace to spaces
 * @param handleChineseChars isolate CJK ideographs
 * @param stripAccents remove accents ({@code café -> cafe})
 * @param lowercase full Unicode lower-casing
 */
record BertNormalizer(boolean cleanText, boolean handleChineseChars, boolean stripAccents, boolean lowercase) {

    String normalize(String text) {
        String s = text;
        if (cleanText || handleChineseChars) {
            StringBuilder b = new StringBuilder(s.length() + 16);
            s.codePoints().forEach(c -> {
                if (cleanText && (c == 0 || c == 0xFFFD || isControl(c))) {
                    return;
                }
                if (cleanText && isWhitespace(c)) {
                    b.append(' ');
                } else if (handleChineseChars && isCjk(c)) {
                    b.append(' ').appendCodePoint(c).append(' ');
                } else {
                    b.appendCodePoint(c);
                }
            });
            s = b.toString();
        }
        if (stripAccents) {
            StringBuilder b = new StringBuilder(s.length());
            Normalizer.normalize(s, Normalizer.Form.NFD).codePoints()
                    .filter(c -> Character.getType(c) != Character.NON_SPACING_MARK)
                    .forEach(b::appendCodePoint);
            s = b.toString();
        }
        return lowercase ? s.toLowerCase(Locale.ROOT) : s;
    }

    /**
     * Unicode's White_Space property (what Rust's {@code char::is_whitespace} tests), which unlike
     * {@link Character#isWhitespace} includes the no-break spaces and excludes U+001C..U+001F.
     */
    static boolean isWhitespace(int c) {
        return switch (c) {
            case '\t', '\n', 0x0B, '\f', '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000 -> true;
            default -> c >= 0x2000 && c <= 0x200A;
        };
    }

    /** Unicode "other" (Cc, Cf, Cn, Co, Cs) except tab, newline and carriage return, which count as whitespace. */
    static boolean isControl(int c) {
        if (c == '\t' || c == '\n' || c == '\r') {
            return false;
        }
        return switch (Character.getType(c)) {
            case Character.CONTROL, Character.FORMAT, Character.UNASSIGNED, Character.PRIVATE_USE,
                 Character.SURROGATE -> true;
            default -> false;
        };
    }

    /** The CJK Unified Ideographs blocks (and their extensions and compatibility forms) BERT isolates. */
    static boolean isCjk(int c) {
        return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF)
                || (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF)
                || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
    }
}
