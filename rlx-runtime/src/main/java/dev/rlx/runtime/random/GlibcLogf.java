package dev.rlx.runtime.random;

/**
 * glibc's {@code logf} (since 2.28; the Arm optimized-routines algorithm, also in musl), reproduced bit for
 * bit. It is not correctly rounded (max error 0.82 ulp), so {@code (float) Math.log(x)} differs from it in
 * about one input in 5,000, which would break parity with C++ programs on Linux. Algorithm: {@code x = 2^k·z}
 * with {@code z} in {@code [0x1.66p-1, 0x1.66p0)} split into 16 subintervals; {@code log(x) = k·ln2 + log(c)
 * + log1p(z/c − 1)} with a table of {@code 1/c, log c} and a degree-4 polynomial, all in double.
 */
final class GlibcLogf {
    private GlibcLogf() {}

    private static final double[] INVC = {
        0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0, 0x1.3c995b0b80385p+0,
        0x1.30d190c8864a5p+0, 0x1.25e227b0b8eap+0, 0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0,
        0x1.0953f419900a7p+0, 0x1p+0, 0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,
        0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1, 0x1.767dcf5534862p-1,
    };
    private static final double[] LOGC = {
        -0x1.57bf7808caadep-2, -0x1.2bef0a7c06ddbp-2, -0x1.01eae7f513a67p-2, -0x1.b31d8a68224e9p-3,
        -0x1.6574f0ac07758p-3, -0x1.1aa2bc79c81p-3, -0x1.a4e76ce8c0e5ep-4, -0x1.1973c5a611cccp-4,
        -0x1.252f438e10c1ep-5, 0x0p+0, 0x1.aa5aa5df25984p-5, 0x1.c5e53aa362eb4p-4,
        0x1.526e57720db08p-3, 0x1.bc2860d22477p-3, 0x1.1058bc8a07ee1p-2, 0x1.4043057b6ee09p-2,
    };
    private static final double LN2 = 0x1.62e42fefa39efp-1;
    private static final double A0 = -0x1.00ea348b88334p-2;
    private static final double A1 = 0x1.5575b0be00b6ap-2;
    private static final double A2 = -0x1.ffffef20a4123p-2;
    /** Start of the subinterval range, as float bits (about 0.7). */
    private static final int OFF = 0x3f330000;

    static float logf(float x) {
        int ix = Float.floatToRawIntBits(x);
        if (ix == 0x3f800000) {
            return 0f; // exact, and +0 in every rounding mode
        }
        if (Integer.compareUnsigned(ix - 0x00800000, 0x7f800000 - 0x00800000) >= 0) {
            if (ix << 1 == 0) {
                return Float.NEGATIVE_INFINITY;
            }
            if (ix == 0x7f800000) {
                return x;
            }
            if (ix < 0 || Integer.compareUnsigned(ix << 1, 0xff000000) >= 0) {
                return Float.NaN;
            }
            ix = Float.floatToRawIntBits(x * 0x1p23f) - (23 << 23); // subnormal: scale into the normal range
        }
        int tmp = ix - OFF;
        int i = (tmp >>> 19) & 15;
        int k = tmp >> 23;
        double z = Float.intBitsToFloat(ix - (tmp & (0x1ff << 23)));
        double r = z * INVC[i] - 1;
        double y0 = LOGC[i] + k * LN2;
        double r2 = r * r;
        double y = A1 * r + A2;
        y = A0 * r2 + y;
        y = y * r2 + (y0 + r);
        return (float) y;
    }
}
