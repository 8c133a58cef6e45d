package dev.rlx.runtime.random;

/**
 * libstdc++'s {@code generate_canonical} and {@code uniform_real_distribution}, step for step, so that values
 * drawn from a {@link UniformRandomBitGenerator} are bit-identical to a GCC-built C++ program's. (GCC's
 * algorithm: {@code k = max(1, ⌈digits / ⌊log₂ R⌋⌉)} engine calls, {@code Σ (gᵢ − min)·Rⁱ / Rᵏ} in the
 * result type, a result of 1 replaced by the largest value below 1.)
 */
public final class StdDistributions {
    private StdDistributions() {}

    /** {@code std::generate_canonical<float, 24>(g)}: a float in {@code [0, 1)}. */
    public static float canonicalFloat(UniformRandomBitGenerator g) {
        double r = range(g);
        int calls = calls(24, g);
        float sum = 0f;
        float tmp = 1f;
        for (int k = 0; k < calls; k++) {
            sum += (float) (g.next() - g.min()) * tmp;
            tmp = (float) (tmp * r);
        }
        float ret = sum / tmp;
        return ret >= 1f ? Math.nextDown(1f) : ret;
    }

    /** {@code std::generate_canonical<double, 53>(g)}: a double in {@code [0, 1)}. */
    public static double canonicalDouble(UniformRandomBitGenerator g) {
        double r = range(g);
        int calls = calls(53, g);
        double sum = 0;
        double tmp = 1;
        for (int k = 0; k < calls; k++) {
            sum += (double) (g.next() - g.min()) * tmp;
            tmp *= r;
        }
        double ret = sum / tmp;
        return ret >= 1 ? Math.nextDown(1.0) : ret;
    }

    /** {@code std::uniform_real_distribution<float>(a, b)(g)}: {@code u·(b − a) + a} in float. */
    public static float uniformFloat(UniformRandomBitGenerator g, float a, float b) {
        return canonicalFloat(g) * (b - a) + a;
    }

    /** {@code std::uniform_real_distribution<double>(a, b)(g)}. */
    public static double uniformDouble(UniformRandomBitGenerator g, double a, double b) {
        return canonicalDouble(g) * (b - a) + a;
    }

    /** {@code R = max − min + 1}, exact in a double for 32-bit engines. */
    private static double range(UniformRandomBitGenerator g) {
        return (double) (g.max() - g.min()) + 1.0;
    }

    /** Engine calls per value: {@code max(1, (digits + log2r − 1) / log2r)} with {@code log2r = ⌊log₂ R⌋}. */
    private static int calls(int digits, UniformRandomBitGenerator g) {
        int log2r = 63 - Long.numberOfLeadingZeros(g.max() - g.min() + 1);
        return Math.max(1, (digits + log2r - 1) / log2r);
    }
}
