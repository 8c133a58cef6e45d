package dev.rlx.runtime.random;

/**
 * libstdc++'s {@code std::normal_distribution}: the Marsaglia polar method on two canonical draws
 * ({@code x = 2u − 1}, {@code y = 2u − 1}, rejected unless {@code 0 < r² ≤ 1}), returning {@code y·f} and
 * keeping {@code x·f} for the next call, with {@code f = √(−2 ln r² / r²)}. The float form computes in
 * float with glibc's {@code logf} ({@link GlibcLogf}), as a GCC build on Linux does, so its values are
 * bit-identical; the double form uses {@code StrictMath.log}, close to but not always equal to glibc's.
 *
 * <p>A new instance (or {@link #reset}) forgets the kept value, like constructing a new distribution.
 */
public final class StdNormal {
    private boolean savedAvailable;
    private double saved;

    /** Forgets the kept second value. */
    public void reset() {
        savedAvailable = false;
    }

    /** The next value of {@code normal_distribution<float>(mean, stddev)}. */
    public float nextFloat(UniformRandomBitGenerator g, float mean, float stddev) {
        float ret;
        if (savedAvailable) {
            savedAvailable = false;
            ret = (float) saved;
        } else {
            float x;
            float y;
            float r2;
            do {
                // (float)(2u - 1.0): C++ subtracts the double literal 1.0 and rounds once to float.
                x = (float) (2f * StdDistributions.canonicalFloat(g) - 1.0);
                y = (float) (2f * StdDistributions.canonicalFloat(g) - 1.0);
                r2 = x * x + y * y;
            } while (r2 > 1.0 || r2 == 0.0);
            float mult = (float) Math.sqrt(-2 * GlibcLogf.logf(r2) / r2);
            saved = x * mult;
            savedAvailable = true;
            ret = y * mult;
        }
        return ret * stddev + mean;
    }

    /** The next value of {@code normal_distribution<double>(mean, stddev)}. */
    public double nextDouble(UniformRandomBitGenerator g, double mean, double stddev) {
        double ret;
        if (savedAvailable) {
            savedAvailable = false;
            ret = saved;
        } else {
            double x;
            double y;
            double r2;
            do {
                x = 2.0 * StdDistributions.canonicalDouble(g) - 1.0;
                y = 2.0 * StdDistributions.canonicalDouble(g) - 1.0;
                r2 = x * x + y * y;
            } while (r2 > 1.0 || r2 == 0.0);
            double mult = Math.sqrt(-2 * StrictMath.log(r2) / r2);
            saved = x * mult;
            savedAvailable = true;
            ret = y * mult;
        }
        return ret * stddev + mean;
    }
}
