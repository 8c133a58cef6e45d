package dev.rlx.onnx.text;

import java.util.Arrays;
import java.util.List;

/**
 * One tokenized text as a BERT encoder takes it: token ids with {@code [CLS]} first and {@code [SEP]} last,
 * the token type of each (0 for a single sentence), and the attention mask (1 for every real token; an
 * encoding padded for a batch has 0s at the end). The arrays are copies; the record is immutable.
 *
 * @param ids vocabulary ids
 * @param typeIds segment of each token
 * @param attentionMask 1 for tokens the model attends to, 0 for padding
 * @param tokens the vocabulary entries, e.g. {@code [CLS] token ##izer [SEP]}
 */
public record Encoding(int[] ids, int[] typeIds, int[] attentionMask, List<String> tokens) {
    public Encoding {
        if (typeIds.length != ids.length || attentionMask.length != ids.length || tokens.size() != ids.length) {
            throw new IllegalArgumentException("ids, type ids, mask and tokens differ in length: " + ids.length + ", "
                    + typeIds.length + ", " + attentionMask.length + ", " + tokens.size());
        }
        ids = ids.clone();
        typeIds = typeIds.clone();
        attentionMask = attentionMask.clone();
        tokens = List.copyOf(tokens);
    }

    @Override
    public int[] ids() {
        return ids.clone();
    }

    @Override
    public int[] typeIds() {
        return typeIds.clone();
    }

    @Override
    public int[] attentionMask() {
        return attentionMask.clone();
    }

    public int length() {
        return ids.length;
    }

    /** This encoding with {@code padId} tokens (type 0, mask 0) appended up to {@code length}. */
    public Encoding padTo(int length, int padId, String padToken) {
        if (length < ids.length) {
            throw new IllegalArgumentException("cannot pad " + ids.length + " tokens to " + length);
        }
        int[] id = Arrays.copyOf(ids, length);
        Arrays.fill(id, ids.length, length, padId);
        String[] tok = tokens.toArray(new String[length]);
        Arrays.fill(tok, ids.length, length, padToken);
        return new Encoding(id, Arrays.copyOf(typeIds, length), Arrays.copyOf(attentionMask, length), List.of(tok));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Encoding e && Arrays.equals(ids, e.ids) && Arrays.equals(typeIds, e.typeIds)
                && Arrays.equals(attentionMask, e.attentionMask) && tokens.equals(e.tokens);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(ids) * 31 + tokens.hashCode();
    }

    @Override
    public String toString() {
        return "Encoding" + tokens + Arrays.toString(ids);
    }
}
