package dev.rlx.llm.sample;

/**
 * Top-nσ (Tang et al., 2024, "Top-nσ: Not All Logits Are You Need"): over the finite logits take the
 * maximum, the mean and the population standard deviation σ; logits below {@code max − n·σ} become −∞, then
 * probabilities are computed in the current order ({@code n <= 0} or at most one candidate: no-op). Squares
 * are taken in double and added into a float, as llama.cpp's {@code pow(float, 2)} does.
 */
final class TopNSigma implements Sampler {
    private final float n;

    TopNSigma(float n) {
        this.n = Params.notNaN("top-n-sigma", "n", n);
    }

    @Override
    public void apply(Candidates c) {
        if (n <= 0f || c.size <= 1) {
            return;
        }
        float[] l = c.logits;
        float max = l[0];
        float sum = 0f;
        int valid = 0;
        for (int i = 0; i < c.size; i++) {
            if (l[i] != Float.NEGATIVE_INFINITY) {
                max = Math.max(max, l[i]);
                sum += l[i];
                valid++;
            }
        }
        float mean = valid > 0 ? sum / valid : 0f;
        float acc = 0f;
        for (int i = 0; i < c.size; i++) {
            if (l[i] != Float.NEGATIVE_INFINITY) {
                double d = l[i] - mean;
                acc = (float) (acc + d * d);
            }
        }
        float std = valid > 0 ? (float) Math.sqrt(acc / valid) : 0f;
        float cut = max - n * std;
        for (int i = 0; i < c.size; i++) {
            if (l[i] < cut) {
                l[i] = Float.NEGATIVE_INFINITY;
            }
        }
        c.softmax(false);
    }

    @Override
    public String name() {
        return "top-n-sigma";
    }
}
