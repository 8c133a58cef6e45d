package dev.rlx.onnx.text;

import java.util.List;
import java.util.Map;

/**
 * WordPiece: splits one word into the longest vocabulary entries, left to right, pieces after the first
 * carrying the continuation prefix ({@code tokenizer -> token ##izer}). A word with a part no entry covers,
 * or longer than {@code maxChars} characters, becomes the single unknown token.
 *
 * @param vocab entry to id
 * @param unknown the unknown token, e.g. {@code [UNK]}
 * @param prefix the continuation prefix, e.g. {@code ##}
 * @param maxChars longest word (in code points) that is split rather than made unknown
 */
record WordPiece(Map<String, Integer> vocab, String unknown, String prefix, int maxChars) {
    WordPiece {
        vocab = Map.copyOf(vocab);
    }

    /** Appends the pieces of {@code word} to {@code out}. */
    void split(String word, List<String> out) {
        int[] cps = word.codePoints().toArray();
        if (cps.length > maxChars) {
            out.add(unknown);
            return;
        }
        int mark = out.size();
        int start = 0;
        while (start < cps.length) {
            String found = null;
            for (int end = cps.length; end > start; end--) {
                String piece = new String(cps, start, end - start);
                String entry = start > 0 ? prefix + piece : piece;
                if (vocab.containsKey(entry)) {
                    found = entry;
                    start = end;
                    break;
                }
            }
            if (found == null) {
                out.subList(mark, out.size()).clear();
                out.add(unknown);
                return;
            }
            out.add(found);
        }
    }
}
