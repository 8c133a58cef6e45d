package dev.rlx.llm.kv;

import java.util.Locale;

/**
 * Limits of one {@link Scheduler} step.
 *
 * @param maxTokensPerStep tokens (decode tokens plus prefill chunk tokens) in one batch, at least 1
 * @param maxSequencesPerStep sequences in one batch, at least 1
 * @param headroomBlocks free blocks that admitting a new request must leave for the running sequences to
 *     grow into (ignored when nothing runs, so a lone request always starts)
 */
public record SchedulerConfig(int maxTokensPerStep, int maxSequencesPerStep, int headroomBlocks) {
    public SchedulerConfig {
        if (maxTokensPerStep < 1 || maxSequencesPerStep < 1 || headroomBlocks < 0) {
            throw new KvCacheException(KvCacheException.Reason.BAD_ARGUMENT, String.format(Locale.ROOT,
                    "[SchedulerConfig] need maxTokensPerStep >= 1, maxSequencesPerStep >= 1, headroomBlocks >= 0"
                            + " but got %d, %d, %d", maxTokensPerStep, maxSequencesPerStep, headroomBlocks));
        }
    }
}
