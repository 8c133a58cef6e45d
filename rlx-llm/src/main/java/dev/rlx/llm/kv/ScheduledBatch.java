package dev.rlx.llm.kv;

import java.util.List;

/**
 * What to run in one step: decode tokens first, then prefill chunks, in the order the model should process
 * them. Every entry's token slots are already appended to its sequence, so the caller computes K/V for
 * {@link Entry#tokens()} at positions {@code start ..}, {@link PagedKvCache#write writes} them, attends with
 * {@link PagedAttention} (query length = token count) and, for each entry that {@link Entry#samples()},
 * samples the next token from the last query row; then hands the tokens to {@link Scheduler#complete}.
 *
 * @param step step number, from 0
 * @param entries the batch, possibly empty
 * @param preempted requests preempted in this step (their blocks freed, back in the waiting queue to be
 *     recomputed)
 */
public record ScheduledBatch(long step, List<Entry> entries, List<Long> preempted) {
    public ScheduledBatch {
        entries = List.copyOf(entries);
        preempted = List.copyOf(preempted);
    }

    /**
     * One sequence's part of the batch.
     *
     * @param requestId the request
     * @param sequence its cache sequence, already grown by {@code tokens.length}
     * @param prefill true for prompt (or recompute) tokens, false for a single decode token
     * @param start position of the first token in the sequence
     * @param tokens token ids to feed the model
     * @param samples whether the step produces this request's next token (the chunk ends its known tokens)
     */
    public record Entry(long requestId, KvSequence sequence, boolean prefill, int start, int[] tokens,
                        boolean samples) {
        public int count() {
            return tokens.length;
        }
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The entries' sequences, in order: the {@code seqs} argument of {@link PagedAttention#forward}. */
    public KvSequence[] sequences() {
        KvSequence[] s = new KvSequence[entries.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = entries.get(i).sequence();
        }
        return s;
    }

    /** The entries' token counts, in order: the {@code queryLens} argument of {@link PagedAttention#forward}. */
    public int[] queryLengths() {
        int[] n = new int[entries.size()];
        for (int i = 0; i < n.length; i++) {
            n[i] = entries.get(i).count();
        }
        return n;
    }

    /** Tokens in the batch. */
    public int tokenCount() {
        int n = 0;
        for (Entry e : entries) {
            n += e.count();
        }
        return n;
    }
}
