package dev.rlx.spark;

import java.io.Serializable;

/**
 * How {@link RlxSpark#onnx} batches a partition's rows.
 *
 * @param batchSize rows per model run when the model's first input dim is symbolic (default 64); a model with a
 *                  fixed first dim runs that many rows at a time
 * @param threads   RLX worker threads per task (0: the task's {@code spark.task.cpus})
 */
public record OnnxOptions(int batchSize, int threads) implements Serializable {
    public OnnxOptions {
        EmbedOptions.check("batchSize", batchSize, 1, EmbedOptions.MAX_BATCH);
        EmbedOptions.check("threads", threads, 0, EmbedOptions.MAX_THREADS);
    }

    public static OnnxOptions defaults() {
        return new OnnxOptions(64, 0);
    }

    public OnnxOptions withBatchSize(int n) {
        return new OnnxOptions(n, threads);
    }

    public OnnxOptions withThreads(int n) {
        return new OnnxOptions(batchSize, n);
    }
}
