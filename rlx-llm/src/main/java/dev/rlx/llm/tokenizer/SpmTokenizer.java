package dev.rlx.llm.tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.PriorityQueue;

/**
 * SentencePiece-style tokenization ({@code tokenizer.ggml.model = llama}), as llama.cpp's
 * {@code llm_tokenizer_spm}: spaces become U+2581 (with one prepended at the start and after a special token when
 * {@code add_space_prefix}), the text is split into UTF-8 characters, and the adjacent pair whose concatenation
 * is a token of highest score (leftmost on ties) is merged until none is left; a symbol that is no token is
 * emitted as its bytes' {@code <0xXX>} tokens (byte fallback).
 */
public final class SpmTokenizer extends Tokenizer {
    static final String SPACE = "\u2581";

    private final int[] byteTokens = new int[256];

    SpmTokenizer(Vocabulary v) {
        super(v);
        for (int b = 0; b < 256; b++) {
            int id = v.id(String.format("<0x%02X>", b));
            if (id < 0 && b < 128) {
                id = v.id(String.valueOf((char) b));
            }
            byteTokens[b] = id >= 0 ? id : v.unk();
        }
    }

    @Override
    boolean stripsLeadingSpace() {
        return vocab.addSpacePrefix();
    }

    private record Bigram(int left, int right, float score, int size) {}

    @Override
    void tokenize(String fragment, boolean afterSpecial, IntList out) {
        String text = (vocab.addSpacePrefix() && afterSpecial ? " " + fragment : fragment).replace(" ", SPACE);
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        int n = 0;
        int[] start = new int[b.length];
        int[] len = new int[b.length];
        for (int o = 0; o < b.length; n++) {
            int l = Math.min(utf8Len(b[o]), b.length - o);
            start[n] = o;
            len[n] = l;
            o += l;
        }
        int[] prev = new int[n];
        int[] next = new int[n];
        for (int i = 0; i < n; i++) {
            prev[i] = i - 1;
            next[i] = i + 1 < n ? i + 1 : -1;
        }
        PriorityQueue<Bigram> queue = new PriorityQueue<>((x, y) -> x.score != y.score
                ? Float.compare(y.score, x.score) : Integer.compare(x.left, y.left));
        for (int i = 1; i < n; i++) {
            tryAdd(b, start, len, i - 1, i, queue);
        }
        while (!queue.isEmpty()) {
            Bigram g = queue.poll();
            if (len[g.left] == 0 || len[g.right] == 0 || len[g.left] + len[g.right] != g.size) {
                continue;
            }
            len[g.left] += len[g.right];
            len[g.right] = 0;
            next[g.left] = next[g.right];
            if (next[g.right] >= 0) {
                prev[next[g.right]] = g.left;
            }
            tryAdd(b, start, len, prev[g.left], g.left, queue);
            tryAdd(b, start, len, g.left, next[g.left], queue);
        }
        // Only pairs that are tokens merge, so a final symbol is a token or a single character: llama.cpp's
        // resegment through rev_merge never splits anything, and what is not a token goes out as bytes.
        for (int i = n == 0 ? -1 : 0; i != -1; i = next[i]) {
            emit(b, start[i], len[i], out);
        }
    }

    private void tryAdd(byte[] b, int[] start, int[] len, int left, int right, PriorityQueue<Bigram> queue) {
        if (left == -1 || right == -1) {
            return;
        }
        int size = len[left] + len[right];
        String text = new String(b, start[left], size, StandardCharsets.UTF_8);
        int id = vocab.id(text);
        if (id < 0) {
            return;
        }
        queue.add(new Bigram(left, right, vocab.score(id), size));
    }

    private void emit(byte[] b, int s, int l, IntList out) {
        String text = new String(b, s, l, StandardCharsets.UTF_8);
        int id = vocab.id(text);
        if (id >= 0) {
            out.add(id);
            return;
        }
        for (int j = 0; j < l; j++) {
            int t = byteTokens[b[s + j] & 0xFF];
            if (t < 0) {
                throw new TokenizerException("byte 0x" + Integer.toHexString(b[s + j] & 0xFF)
                        + " has no <0xXX> token and the vocabulary has no unknown token");
            }
            out.add(t);
        }
    }

    static int utf8Len(byte lead) {
        int h = (lead & 0xFF) >>> 4;
        return h < 8 ? 1 : h < 12 ? 1 : h < 14 ? 2 : h == 14 ? 3 : 4;
    }

    @Override
    public byte[] piece(int id, boolean special) {
        String t = vocab.token(id);
        return switch (vocab.type(id)) {
            case NORMAL, UNDEFINED, UNUSED -> utf8(t.replace(SPACE, " "));
            case USER_DEFINED -> utf8(t);
            case BYTE -> t.matches("<0x[0-9A-Fa-f]{2}>") ? new byte[] {(byte) Integer.parseInt(t.substring(3, 5), 16)}
                    : utf8(t);
            case UNKNOWN -> utf8("\u2585");
            case CONTROL -> special ? utf8(t) : new byte[0];
        };
    }
}
