package dev.rlx.spark;

import dev.rlx.onnx.text.Encoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One window of tokenized texts embedded as {@link EmbedOptions} says: sorted by token count, cut into batches of
 * {@code batchSize}, each padded to its longest text rounded up to a multiple of {@code bucket} (and a partial
 * batch to a power of two rows). What a task does with each window of its partition; the benchmarks run it
 * without Spark too.
 */
public final class LengthBuckets {
    private LengthBuckets() {}

    /**
     * Per encoding its embedding, in order (null for a null encoding).
     *
     * @param maxTokens the tokenizer's limit: no batch is padded beyond it (nor below its longest text)
     * @param partition for errors: the partition, the window's offset in it, and the text column
     * @throws PartitionInferenceException if the encoder fails, naming the batch's rows
     */
    public static float[][] embed(Encoding[] enc, TextEncoder encoder, EmbedOptions options, int maxTokens,
                                  int partition, long offset, String column) {
        int n = enc.length;
        Integer[] order = new Integer[n];
        int texts = 0;
        for (int i = 0; i < n; i++) {
            if (enc[i] != null) {
                order[texts++] = i;
            }
        }
        Integer[] sorted = Arrays.copyOf(order, texts);
        Arrays.sort(sorted, (a, b) -> Integer.compare(enc[a].length(), enc[b].length())); // stable: ties keep row order
        float[][] out = new float[n][];
        for (int from = 0; from < texts; from += options.batchSize()) {
            int to = Math.min(texts, from + options.batchSize());
            List<Encoding> batch = new ArrayList<>(to - from);
            int longest = 1;
            for (int k = from; k < to; k++) {
                batch.add(enc[sorted[k]]);
                longest = Math.max(longest, enc[sorted[k]].length());
            }
            int rows = Batches.roundedBatch(to - from, options.batchSize());
            Encoding filler = batch.get(0);
            while (batch.size() < rows) {
                batch.add(filler); // a row whose result is dropped: keeps batch sizes to a few powers of two
            }
            int seq = Math.min(Batches.roundUp(longest, options.bucket()), Math.max(longest, maxTokens));
            float[][] v;
            try {
                v = encoder.embed(batch, seq);
            } catch (RuntimeException e) {
                long first = Long.MAX_VALUE;
                long last = -1;
                for (int k = from; k < to; k++) {
                    first = Math.min(first, offset + sorted[k]);
                    last = Math.max(last, offset + sorted[k]);
                }
                throw new PartitionInferenceException(partition, first, last, "embedding a batch of " + (to - from)
                        + " texts of column '" + column + "' (" + seq + " tokens)", e);
            }
            for (int k = from; k < to; k++) {
                out[sorted[k]] = v[k - from];
            }
        }
        return out;
    }
}
