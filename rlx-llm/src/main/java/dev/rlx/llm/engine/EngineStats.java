package dev.rlx.llm.engine;

/**
 * A snapshot of an engine, taken after its last step.
 *
 * @param waiting requests submitted and not running (queued, or preempted and waiting to be recomputed)
 * @param running requests holding KV blocks
 * @param kvBlocksTotal blocks in the KV cache
 * @param kvBlocksFree blocks free
 * @param promptTokensTotal prompt tokens of every request submitted so far
 * @param generatedTokensTotal tokens generated so far
 * @param steps model steps run so far
 * @param lastBatchSequences sequences in the last step
 * @param lastBatchTokens tokens in the last step
 */
public record EngineStats(int waiting, int running, int kvBlocksTotal, int kvBlocksFree, long promptTokensTotal,
                          long generatedTokensTotal, long steps, int lastBatchSequences, int lastBatchTokens) {}
