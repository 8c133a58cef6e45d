package dev.rlx.llm.tokenizer;

import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Byte-level BPE ({@code tokenizer.ggml.model = gpt2}), as llama.cpp's {@code llm_tokenizer_bpe}: each word of
 * the {@link PreTokenizer} is spelled in {@link ByteLevel} characters, then the adjacent pair of lowest merge rank
 * ({@code tokenizer.ggml.merges}, leftmost on ties) is merged until no pair has a rank. A final symbol that is no
 * token goes out as the tokens of its single characters, where there are.
 */
public final class BpeTokenizer extends Tokenizer {
    private final PreTokenizer pre;
    private final Map<String, Integer> ranks;

    BpeTokenizer(Vocabulary v) {
        super(v);
        this.pre = PreTokenizer.of(v.pre());
        String[] merges = v.merges();
        this.ranks = new HashMap<>(merges.length * 2);
        for (int i = 0; i < merges.length; i++) {
            int sp = merges[i].indexOf(' ', 1);
            if (sp < 0) {
                throw new TokenizerException("tokenizer.ggml.merges[" + i + "] '" + merges[i]
                        + "' is not two tokens separated by a space");
            }
            // keyed by the pair with a separator no byte-level text contains
            ranks.putIfAbsent(merges[i].substring(0, sp) + '\u0000' + merges[i].substring(sp + 1), i);
        }
    }

    private record Bigram(int left, int right, String text, int rank) {}

    @Override
    void tokenize(String fragment, boolean afterSpecial, IntList out) {
        for (String word : pre.split(fragment)) {
            String w = ByteLevel.encode(word);
            if (pre.ignoreMerges()) {
                int id = vocab.id(w);
                if (id >= 0) {
                    out.add(id);
                    continue;
                }
            }
            merge(w, out);
        }
    }

    private void merge(String w, IntList out) {
        int n = w.length(); // byte-level characters are all in the BMP: one char each
        int[] start = new int[n];
        int[] len = new int[n];
        int[] prev = new int[n];
        int[] next = new int[n];
        for (int i = 0; i < n; i++) {
            start[i] = i;
            len[i] = 1;
            prev[i] = i - 1;
            next[i] = i + 1 < n ? i + 1 : -1;
        }
        PriorityQueue<Bigram> queue = new PriorityQueue<>((x, y) -> x.rank != y.rank
                ? Integer.compare(x.rank, y.rank) : Integer.compare(x.left, y.left));
        for (int i = 1; i < n; i++) {
            add(w, start, len, i - 1, i, queue);
        }
        while (!queue.isEmpty()) {
            Bigram g = queue.poll();
            if (len[g.left] == 0 || len[g.right] == 0
                    || !w.regionMatches(start[g.left], g.text, 0, g.text.length())
                    || len[g.left] + len[g.right] != g.text.length()) {
                continue; // outdated
            }
            len[g.left] += len[g.right];
            len[g.right] = 0;
            next[g.left] = next[g.right];
            if (next[g.right] >= 0) {
                prev[next[g.right]] = g.left;
            }
            add(w, start, len, prev[g.left], g.left, queue);
            add(w, start, len, g.left, next[g.left], queue);
        }
        for (int i = n == 0 ? -1 : 0; i != -1; i = next[i]) {
            String s = w.substring(start[i], start[i] + len[i]);
            int id = vocab.id(s);
            if (id >= 0) {
                out.add(id);
            } else {
                for (int j = 0; j < s.length(); j++) {
                    int c = vocab.id(s.substring(j, j + 1));
                    if (c >= 0) {
                        out.add(c);
                    }
                }
            }
        }
    }

    private void add(String w, int[] start, int[] len, int left, int right, PriorityQueue<Bigram> queue) {
        if (left == -1 || right == -1) {
            return;
        }
        String l = w.substring(start[left], start[left] + len[left]);
        String r = w.substring(start[right], start[right] + len[right]);
        Integer rank = ranks.get(l + '\u0000' + r);
        if (rank != null) {
            queue.add(new Bigram(left, right, l + r, rank));
        }
    }

    @Override
    public byte[] piece(int id, boolean special) {
        String t = vocab.token(id);
        return switch (vocab.type(id)) {
            case NORMAL, UNDEFINED, UNUSED, BYTE -> ByteLevel.decode(t);
            case USER_DEFINED -> utf8(t);
            case UNKNOWN, CONTROL -> special ? utf8(t) : new byte[0];
        };
    }
}
