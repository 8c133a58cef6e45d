package dev.rlx.llm.sample;

/**
 * {@code H = −Σ p·ln p} in float over the candidates' probabilities, skipping {@code p = 0} (llama.cpp's
 * dynamic temperature skips them; its typical sampler does not and gets NaN, which RLX does not copy).
 */
final class Entropy {
    private Entropy() {}

    static float of(Candidates c) {
        float h = 0f;
        for (int i = 0; i < c.size; i++) {
            float p = c.p[i];
            if (p > 0f) {
                h -= p * (float) Math.log(p);
            }
        }
        return h;
    }
}
