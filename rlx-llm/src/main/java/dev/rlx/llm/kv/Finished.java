package dev.rlx.llm.kv;

/**
 * A request the {@link Scheduler} is done with; its blocks are already freed.
 *
 * @param requestId the request
 * @param output generated tokens, including the end-of-sequence token when that ended it
 * @param reason why it stopped
 * @param preemptions how often it was preempted and recomputed
 */
public record Finished(long requestId, int[] output, Reason reason, int preemptions) {
    /** Why a request stopped. */
    public enum Reason {
        /** It produced its end-of-sequence token. */
        EOS,
        /** It produced {@code maxNewTokens} tokens. */
        LENGTH,
        /** {@link Scheduler#abort} removed it. */
        ABORTED
    }
}
