package dev.rlx.llm.engine;

import dev.rlx.ir.quant.BlockFormat;
import java.util.Locale;
import java.util.Objects;

/**
 * How an engine runs its model.
 *
 * @param threads CPU threads of the model's kernels, at least 1
 * @param kvStorage how the KV cache stores keys and values (F32, F16, Q8_0, Q5_0 or Q4_0)
 * @param maxSequences most sequences in one step (and so running at once), at least 1
 * @param maxBatchTokens most tokens in one step (decode tokens plus prefill chunks), at least 1
 * @param queueCapacity most requests waiting to start; a submit beyond it fails with QUEUE_FULL
 * @param contextLength most tokens per request; 0 = the model's
 * @param kvCacheBytes bytes of KV cache; 0 = enough for {@code maxSequences} full contexts, within the limits
 */
public record EngineOptions(int threads, BlockFormat kvStorage, int maxSequences, int maxBatchTokens,
                            int queueCapacity, int contextLength, long kvCacheBytes) {
    public EngineOptions {
        Objects.requireNonNull(kvStorage, "kvStorage");
        if (threads < 1 || maxSequences < 1 || maxBatchTokens < 1 || queueCapacity < 1 || contextLength < 0
                || kvCacheBytes < 0) {
            throw new EngineException(EngineException.Reason.INVALID_REQUEST, String.format(Locale.ROOT,
                    "[EngineOptions] need threads, maxSequences, maxBatchTokens, queueCapacity >= 1 and"
                            + " contextLength, kvCacheBytes >= 0 but got %d, %d, %d, %d, %d, %d", threads,
                    maxSequences, maxBatchTokens, queueCapacity, contextLength, kvCacheBytes));
        }
    }

    /** All cores, F16 KV, 16 sequences, 512 tokens a step, 256 queued, the model's context, default cache size. */
    public static EngineOptions defaults() {
        return new EngineOptions(Runtime.getRuntime().availableProcessors(), BlockFormat.F16, 16, 512, 256, 0, 0);
    }

    public EngineOptions withThreads(int v) {
        return new EngineOptions(v, kvStorage, maxSequences, maxBatchTokens, queueCapacity, contextLength,
                kvCacheBytes);
    }

    public EngineOptions withKvStorage(BlockFormat v) {
        return new EngineOptions(threads, v, maxSequences, maxBatchTokens, queueCapacity, contextLength,
                kvCacheBytes);
    }

    public EngineOptions withMaxSequences(int v) {
        return new EngineOptions(threads, kvStorage, v, maxBatchTokens, queueCapacity, contextLength, kvCacheBytes);
    }

    public EngineOptions withMaxBatchTokens(int v) {
        return new EngineOptions(threads, kvStorage, maxSequences, v, queueCapacity, contextLength, kvCacheBytes);
    }

    public EngineOptions withQueueCapacity(int v) {
        return new EngineOptions(threads, kvStorage, maxSequences, maxBatchTokens, v, contextLength, kvCacheBytes);
    }

    public EngineOptions withContextLength(int v) {
        return new EngineOptions(threads, kvStorage, maxSequences, maxBatchTokens, queueCapacity, v, kvCacheBytes);
    }

    public EngineOptions withKvCacheBytes(long v) {
        return new EngineOptions(threads, kvStorage, maxSequences, maxBatchTokens, queueCapacity, contextLength, v);
    }
}
