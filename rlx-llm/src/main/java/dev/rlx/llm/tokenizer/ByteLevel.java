package dev.rlx.llm.tokenizer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * GPT-2's byte-to-character map ({@code bytes_to_unicode}): printable Latin-1 bytes (33..126, 161..172,
 * 174..255) stand for themselves, the other 68 map in order to U+0100 onwards, so every byte string is a string
 * of visible characters that byte-level BPE vocabularies spell their tokens in.
 */
final class ByteLevel {
    private ByteLevel() {}

    private static final char[] BYTE_TO_CHAR = new char[256];
    private static final int[] CHAR_TO_BYTE = new int[512];

    static {
        java.util.Arrays.fill(CHAR_TO_BYTE, -1);
        int extra = 0;
        for (int b = 0; b < 256; b++) {
            boolean self = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
            char c = self ? (char) b : (char) (256 + extra++);
            BYTE_TO_CHAR[b] = c;
            CHAR_TO_BYTE[c] = b;
        }
    }

    /** The character byte {@code b} is spelled as. */
    static char charOf(int b) {
        return BYTE_TO_CHAR[b & 0xFF];
    }

    /** The byte-level spelling of {@code text}'s UTF-8 bytes. */
    static String encode(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        char[] c = new char[b.length];
        for (int i = 0; i < b.length; i++) {
            c[i] = BYTE_TO_CHAR[b[i] & 0xFF];
        }
        return new String(c);
    }

    /** The bytes a byte-level token text stands for; characters outside the map are kept as their UTF-8. */
    static byte[] decode(String token) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(token.length());
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            int b = c < CHAR_TO_BYTE.length ? CHAR_TO_BYTE[c] : -1;
            if (b >= 0) {
                out.write(b);
            } else {
                int cp = token.codePointAt(i);
                byte[] u = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
                out.write(u, 0, u.length);
                i += Character.charCount(cp) - 1;
            }
        }
        return out.toByteArray();
    }
}
