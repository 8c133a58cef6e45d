package dev.rlx.llm.sample;

/**
 * Keeps the {@code k} highest logits, sorted descending, ties to the lower token id ({@code k <= 0}: no-op).
 * Unsorted input: a size-k heap over the candidates, O(n log k); large k sorts all of them.
 */
final class TopK implements Sampler {
    private final int k;

    TopK(int k) {
        this.k = k;
    }

    int k() {
        return k;
    }

    @Override
    public void apply(Candidates c) {
        keep(c, k);
    }

    /** {@code llama_sampler_top_k_impl}. */
    static void keep(Candidates c, int k) {
        if (k <= 0) {
            return;
        }
        k = Math.min(k, c.size);
        if (!c.sorted) {
            c.keepTop(k);
        }
        c.size = k;
    }

    @Override
    public String name() {
        return "top-k";
    }
}
