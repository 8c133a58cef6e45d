package dev.rlx.llm.model;

import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.llm.kv.ScheduledBatch;

/**
 * A decoder as the generation engine drives it: one call runs every entry of a scheduled batch (decode tokens
 * and prefill chunks of many sequences) through the model at once, writing each new token's keys and values
 * into {@link #cache()} and the next-token logits of each entry's last token into {@code logits}.
 *
 * <p>Implementations: {@code LlamaModel} (the {@code llama} architecture family from a GGUF file) and test
 * fakes. One {@code forward} at a time; the engine calls it from its step loop only.
 */
public interface BatchForward extends AutoCloseable {

    /** Vocabulary size: the length of one row of logits. */
    int vocabSize();

    /** Most tokens one sequence may hold (prompt and output): the model's context length, or less if configured. */
    int contextLength();

    /** The paged KV cache the model reads and writes; the scheduler allocates its blocks. */
    PagedKvCache cache();

    /**
     * Runs {@code batch}: entry {@code i}'s tokens sit at positions {@code [start, start + count)} of its sequence,
     * whose earlier positions are already cached. After the call the new positions' K/V are cached and row
     * {@code i} of {@code logits} ({@code [batch.entries().size(), vocabSize()]}, row-major) holds the logits
     * after entry {@code i}'s last token (rows of prefill chunks that do not end their prompt may be left as
     * they are).
     *
     * @throws dev.rlx.ir.RlxException subtypes on failure, with the cache left as it was for the entries
     *         that were not run
     */
    void forward(ScheduledBatch batch, float[] logits);

    @Override
    void close();
}
