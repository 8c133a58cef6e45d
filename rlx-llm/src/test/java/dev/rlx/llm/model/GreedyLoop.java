package dev.rlx.llm.model;

import dev.rlx.llm.kv.KvSequence;
import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.llm.kv.ScheduledBatch;
import java.util.List;

/**
 * A test-only driver of a {@link BatchForward} for one sequence: the prompt in chunks of {@code chunk} tokens,
 * then greedy steps, keeping the logits after the prompt and after each generated token (the engine's sampling
 * loop lives in h/engine; this is the least that exercises prefill and decode).
 */
final class GreedyLoop {
    final int[] tokens;
    /** {@code logits[i]}: after the prompt (i = 0) and after generated token i (teacher-forced: what followed). */
    final float[][] logits;

    private GreedyLoop(int[] tokens, float[][] logits) {
        this.tokens = tokens;
        this.logits = logits;
    }

    /** Prefills {@code prompt} in chunks and generates {@code steps} tokens greedily. */
    static GreedyLoop run(BatchForward m, long id, int[] prompt, int steps, int chunk) {
        return run(m, id, prompt, steps, chunk, null);
    }

    /**
     * Like {@link #run(BatchForward, long, int[], int, int)}, but when {@code forced} is given the tokens fed
     * after the prompt are {@code forced} (teacher forcing) while {@link #tokens} still records the argmax.
     */
    static GreedyLoop run(BatchForward m, long id, int[] prompt, int steps, int chunk, int[] forced) {
        PagedKvCache cache = m.cache();
        KvSequence s = cache.newSequence(id, prompt.length + steps);
        try {
            float[] row = new float[m.vocabSize()];
            float[][] out = new float[steps + 1][];
            int[] gen = new int[steps];
            long step = 0;
            for (int at = 0; at < prompt.length; at += chunk) {
                int n = Math.min(chunk, prompt.length - at);
                int[] part = java.util.Arrays.copyOfRange(prompt, at, at + n);
                one(m, s, id, step++, true, part, row);
            }
            out[0] = row.clone();
            for (int i = 0; i < steps; i++) {
                gen[i] = argmax(row);
                one(m, s, id, step++, false, new int[] {forced == null ? gen[i] : forced[i]}, row);
                out[i + 1] = row.clone();
            }
            return new GreedyLoop(gen, out);
        } finally {
            cache.free(s);
        }
    }

    /** Appends {@code tokens} to {@code s} and runs them as a one-entry batch, leaving the logits in {@code row}. */
    static void one(BatchForward m, KvSequence s, long id, long step, boolean prefill, int[] tokens, float[] row) {
        int start = m.cache().append(s, tokens.length);
        m.forward(new ScheduledBatch(step, List.of(new ScheduledBatch.Entry(id, s, prefill, start, tokens, true)),
                List.of()), row);
    }

    static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }
}
