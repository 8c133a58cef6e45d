package dev.rlx.spark;

import dev.rlx.onnx.embed.MiniLm;
import java.io.Serializable;
import java.util.Objects;

/**
 * How {@link RlxSpark#embed} batches a partition's texts. Immutable; start from {@link #defaults()}.
 *
 * <p>Each task reads up to {@code window} non-null texts of its partition, sorts them by token count and embeds
 * them {@code batchSize} at a time, each batch padded to its longest text rounded up to a multiple of
 * {@code bucket} tokens: short texts are not padded to the longest of a big batch, and a few compiled shapes
 * serve the whole job. Rows come out in their input order.
 *
 * @param model     the all-MiniLM-L6-v2 variant (default {@link MiniLm#FP32})
 * @param batchSize texts per model run (default 32)
 * @param bucket    sequence lengths are rounded up to a multiple of this (default 16; 1 pads to the longest only)
 * @param window    texts sorted by length together (default 512); a multiple of batchSize keeps batches full
 * @param maxLength tokens kept of a text, [CLS] and [SEP] included (0: the tokenizer's 128; at most 512)
 * @param threads   RLX worker threads per task (0: the task's {@code spark.task.cpus})
 */
public record EmbedOptions(MiniLm model, int batchSize, int bucket, int window, int maxLength, int threads)
        implements Serializable {
    /** Bounds that keep one batch's buffers small (a batch is batchSize x 512 tokens at most). */
    static final int MAX_BATCH = 4096;
    static final int MAX_WINDOW = 1 << 20;
    static final int MAX_THREADS = 4096;

    public EmbedOptions {
        Objects.requireNonNull(model, "model");
        check("batchSize", batchSize, 1, MAX_BATCH);
        check("bucket", bucket, 1, MiniLm.MAX_POSITIONS);
        check("window", window, 1, MAX_WINDOW);
        if (maxLength != 0) {
            check("maxLength", maxLength, 2, MiniLm.MAX_POSITIONS);
        }
        check("threads", threads, 0, MAX_THREADS);
    }

    public static EmbedOptions defaults() {
        return new EmbedOptions(MiniLm.FP32, 32, 16, 512, 0, 0);
    }

    public EmbedOptions withModel(MiniLm m) {
        return new EmbedOptions(m, batchSize, bucket, window, maxLength, threads);
    }

    public EmbedOptions withBatchSize(int n) {
        return new EmbedOptions(model, n, bucket, window, maxLength, threads);
    }

    public EmbedOptions withBucket(int n) {
        return new EmbedOptions(model, batchSize, n, window, maxLength, threads);
    }

    public EmbedOptions withWindow(int n) {
        return new EmbedOptions(model, batchSize, bucket, n, maxLength, threads);
    }

    public EmbedOptions withMaxLength(int n) {
        return new EmbedOptions(model, batchSize, bucket, window, n, threads);
    }

    public EmbedOptions withThreads(int n) {
        return new EmbedOptions(model, batchSize, bucket, window, maxLength, n);
    }

    static void check(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw new RlxSparkException(what + " must be in [" + min + ", " + max + "] but is " + value);
        }
    }
}
