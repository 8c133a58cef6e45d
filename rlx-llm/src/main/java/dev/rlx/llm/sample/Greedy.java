package dev.rlx.llm.sample;

/** Selects the candidate with the highest logit, the first one on ties. Computes no probabilities. */
final class Greedy implements Sampler {
    @Override
    public void apply(Candidates c) {
        if (c.size == 0) {
            c.selected = -1;
            return;
        }
        int best = 0;
        for (int i = 1; i < c.size; i++) {
            if (c.logits[i] > c.logits[best]) {
                best = i;
            }
        }
        c.selected = best;
    }

    @Override
    public String name() {
        return "greedy";
    }
}
