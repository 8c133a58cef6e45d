package dev.rlx.llm.kv;

/**
 * Contiguous scaled dot-product attention in double: the semantics of {@code Op.Attention} (and of the CPU
 * attention kernel) for one sequence, written plainly as the oracle for {@link PagedAttention}.
 */
final class AttentionReference {
    private AttentionReference() {}

    /**
     * Attention of the last {@code qlen} of {@code len} positions over all keys up to each query's own position.
     *
     * @param q {@code [qlen, heads, headDim]}
     * @param k {@code [len, kvHeads, headDim]}
     * @param v {@code [len, kvHeads, headDim]}
     * @return {@code [qlen, heads, headDim]}
     */
    static double[] attend(float[] q, int qOff, float[] k, float[] v, int qlen, int len, int heads, int kvHeads,
                           int headDim, double scale) {
        double[] out = new double[qlen * heads * headDim];
        int group = heads / kvHeads;
        double[] scores = new double[len];
        for (int i = 0; i < qlen; i++) {
            int last = len - qlen + i; // causal: keys [0, last]
            for (int h = 0; h < heads; h++) {
                int kh = h / group;
                int qo = qOff + (i * heads + h) * headDim;
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j <= last; j++) {
                    double s = 0;
                    for (int d = 0; d < headDim; d++) {
                        s += (double) q[qo + d] * k[(j * kvHeads + kh) * headDim + d];
                    }
                    scores[j] = s * scale;
                    max = Math.max(max, scores[j]);
                }
                double sum = 0;
                for (int j = 0; j <= last; j++) {
                    scores[j] = Math.exp(scores[j] - max);
                    sum += scores[j];
                }
                int oo = (i * heads + h) * headDim;
                for (int j = 0; j <= last; j++) {
                    for (int d = 0; d < headDim; d++) {
                        out[oo + d] += scores[j] / sum * v[(j * kvHeads + kh) * headDim + d];
                    }
                }
            }
        }
        return out;
    }
}
