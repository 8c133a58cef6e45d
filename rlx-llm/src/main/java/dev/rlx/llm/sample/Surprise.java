package dev.rlx.llm.sample;

/** Surprise in bits, {@code −log₂ p}, as a float ({@code log2f}). */
final class Surprise {
    private Surprise() {}

    private static final double LN2 = Math.log(2);

    static float bits(float p) {
        return -(float) (Math.log(p) / LN2);
    }
}
