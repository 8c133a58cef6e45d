package dev.rlx.llm.sample;

import java.util.Arrays;

/**
 * Repetition, frequency and presence penalties over the last {@code lastN} accepted tokens, as llama.cpp:
 * for a candidate seen {@code c > 0} times, first {@code l = l <= 0 ? l·repeat : l/repeat} (dividing a
 * negative logit would raise it), then {@code l −= c·frequency + presence}. No-op when {@code lastN = 0} or
 * the penalties are neutral (1, 0, 0). Counts are kept per token id in an array that grows, on
 * {@link #accept}, to the largest id seen; {@code apply} allocates nothing.
 */
final class Penalties implements Sampler {
    private final int lastN;
    private final float repeat;
    private final float frequency;
    private final float presence;
    private final TokenHistory history;
    private int[] counts = new int[0];

    Penalties(int lastN, float repeat, float frequency, float presence) {
        this.lastN = Params.atLeast("penalties", "lastN", lastN, 0);
        this.repeat = Params.finite("penalties", "repeat", repeat);
        this.frequency = Params.finite("penalties", "frequency", frequency);
        this.presence = Params.finite("penalties", "presence", presence);
        this.history = new TokenHistory(lastN);
    }

    @Override
    public void accept(int token) {
        if (lastN == 0) {
            return;
        }
        if (token < 0) {
            throw new SamplingException("token", -1, "penalties: token id " + token + " is negative");
        }
        if (token >= counts.length) {
            counts = Arrays.copyOf(counts, Math.max(token + 1, 2 * counts.length));
        }
        counts[token]++;
        if (history.size() >= lastN) {
            counts[history.oldest()]--;
        }
        history.push(token);
    }

    @Override
    public void apply(Candidates c) {
        if (lastN == 0 || repeat == 1f && frequency == 0f && presence == 0f) {
            return;
        }
        for (int i = 0; i < c.size; i++) {
            int id = c.ids[i];
            int count = id < counts.length ? counts[id] : 0;
            if (count == 0) {
                continue;
            }
            float l = c.logits[i];
            l = l <= 0 ? l * repeat : l / repeat;
            c.logits[i] = l - (count * frequency + presence);
        }
        c.sorted = false;
    }

    @Override
    public void reset() {
        history.clear();
        Arrays.fill(counts, 0);
    }

    @Override
    public String name() {
        return "penalties";
    }
}
