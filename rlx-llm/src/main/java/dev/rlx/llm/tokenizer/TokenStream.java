package dev.rlx.llm.tokenizer;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes one sequence's tokens as they are generated, returning only whole UTF-8 characters: a token that ends
 * inside a multi-byte character (byte-fallback tokens, byte-level BPE pieces of an emoji) holds its bytes back
 * until the next token completes them. Invalid sequences become U+FFFD. A leading BOS is skipped and the first
 * piece loses the one space SentencePiece added, so the concatenated output equals {@link Tokenizer#decode}.
 * Not thread-safe: one per sequence.
 */
public final class TokenStream {
    private final Tokenizer tokenizer;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer pending = ByteBuffer.allocate(64);
    private CharBuffer chars = CharBuffer.allocate(64);
    private boolean first = true;

    TokenStream(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** The text that token {@code id} completes (possibly empty). */
    public String next(int id) {
        Vocabulary v = tokenizer.vocabulary();
        if (first && id == v.bos() && v.type(id) == TokenType.CONTROL) {
            return ""; // dropped as llama_detokenize's remove_special does, so the next piece is the first
        }
        byte[] p = tokenizer.piece(id, false);
        int from = 0;
        if (first && tokenizer.stripsLeadingSpace() && p.length > 0 && p[0] == ' ') {
            from = 1;
        }
        first = false;
        if (pending.remaining() < p.length - from) {
            ByteBuffer b = ByteBuffer.allocate(Math.max(pending.capacity() * 2, pending.position() + p.length));
            pending.flip();
            b.put(pending);
            pending = b;
        }
        pending.put(p, from, p.length - from);
        return drain(false);
    }

    /** What is still held back (an incomplete character at the end becomes U+FFFD); the stream can go on. */
    public String finish() {
        return drain(true);
    }

    private String drain(boolean end) {
        pending.flip();
        if (chars.capacity() < pending.remaining() + 2) {
            chars = CharBuffer.allocate(pending.remaining() * 2 + 2);
        }
        chars.clear();
        CoderResult r = utf8.decode(pending, chars, end);
        if (end) {
            utf8.flush(chars);
            utf8.reset();
        }
        assert !r.isOverflow();
        pending.compact();
        chars.flip();
        return chars.toString();
    }
}
