package dev.rlx.llm.engine;

/**
 * Log-probabilities under raw logits: {@code log softmax(x)_i = x_i - (max + log sum exp(x - max))}, the sum in
 * double, and the top N tokens by logit (ties: lower id first). Buffers are kept, so a step allocates nothing
 * here. Not thread-safe: the engine's step loop owns one.
 */
final class LogProbs {
    private final int[] topIds = new int[GenerationRequest.MAX_TOP_LOGPROBS];
    private final float[] topLogits = new float[GenerationRequest.MAX_TOP_LOGPROBS];
    private int topCount;
    private double logSumExp;

    /** Prepares {@code logits[0, n)}: its log-sum-exp and, when {@code top > 0}, its top {@code top} tokens. */
    void of(float[] logits, int n, int top) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, logits[i]);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Math.exp((double) logits[i] - max);
        }
        logSumExp = max + Math.log(sum);
        topCount = 0;
        int k = Math.min(top, n);
        for (int i = 0; i < n && k > 0; i++) {
            float x = logits[i];
            if (topCount == k && !(x > topLogits[k - 1])) {
                continue; // not above the smallest kept (a tie keeps the earlier, lower id)
            }
            int at = Math.min(topCount, k - 1);
            while (at > 0 && x > topLogits[at - 1]) {
                topIds[at] = topIds[at - 1];
                topLogits[at] = topLogits[at - 1];
                at--;
            }
            topIds[at] = i;
            topLogits[at] = x;
            topCount = Math.min(topCount + 1, k);
        }
    }

    /** The log-probability of a token whose logit is {@code logit}. */
    float logprob(float logit) {
        return (float) (logit - logSumExp);
    }

    int topCount() {
        return topCount;
    }

    int topId(int i) {
        return topIds[i];
    }

    float topLogprob(int i) {
        return logprob(topLogits[i]);
    }
}
