package dev.rlx.llm.sample;

/**
 * llama.cpp's {@code temp} and {@code temp-ext}. Plain: {@code l /= t}; {@code t <= 0} keeps only the first
 * maximum (every other logit becomes −∞), i.e. greedy. Dynamic ({@code delta > 0}, "entropy-based
 * temperature"): softmax, {@code t' = max(0, t−δ) + 2δ·(H / ln n)^exponent} with {@code H} the entropy of the
 * candidates, then plain {@code t'} and probabilities recomputed in double.
 */
final class Temperature implements Sampler {
    private final float temp;
    private final float delta;
    private final float exponent;

    Temperature(float temp, float delta, float exponent) {
        this.temp = Params.notNaN("temp", "temperature", temp);
        this.delta = Params.notNaN("temp-ext", "delta", delta);
        this.exponent = Params.notNaN("temp-ext", "exponent", exponent);
    }

    @Override
    public void apply(Candidates c) {
        if (delta <= 0) {
            scale(c, temp);
            return;
        }
        if (c.size <= 1) {
            return;
        }
        float minTemp = Math.max(0f, temp - delta);
        float maxTemp = temp + delta;
        float maxEntropy = -(float) Math.log(1.0f / c.size);
        c.softmax(true);
        float entropy = Entropy.of(c);
        float dynTemp = minTemp + (maxTemp - minTemp) * (float) Math.pow(entropy / maxEntropy, exponent);
        scale(c, dynTemp);
        double max = c.logits[0];
        double sum = 0;
        for (int i = 0; i < c.size; i++) {
            double e = Math.exp(c.logits[i] - max);
            c.p[i] = (float) e;
            sum += e;
        }
        for (int i = 0; i < c.size; i++) {
            c.p[i] = (float) (c.p[i] / sum);
        }
    }

    /** {@code llama_sampler_temp_impl}. */
    static void scale(Candidates c, float t) {
        float[] l = c.logits;
        if (t <= 0f) {
            if (c.size == 0) {
                return;
            }
            int maxI = 0;
            float maxL = l[0];
            for (int i = 1; i < c.size; i++) {
                if (l[i] > maxL) {
                    l[maxI] = Float.NEGATIVE_INFINITY;
                    maxI = i;
                    maxL = l[i];
                } else {
                    l[i] = Float.NEGATIVE_INFINITY;
                }
            }
            return;
        }
        for (int i = 0; i < c.size; i++) {
            l[i] /= t;
        }
    }

    @Override
    public String name() {
        return delta > 0 ? "temp-ext" : "temp";
    }
}
