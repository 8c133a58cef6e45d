package dev.rlx.runtime.random;

/**
 * The Philox4x32-10 block function (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2,
 * 3", SC'11) with the canonical Random123 constants: a keyed bijection from a 128-bit counter to 128 random
 * bits. Counter-based, so any element of a stream can be computed without the ones before it, which is what
 * lets kernels split work freely.
 */
public final class Philox4x32 {
    private Philox4x32() {}

    /** Round multipliers. */
    public static final int M0 = 0xD2511F53;
    public static final int M1 = 0xCD9E8D57;
    /** Weyl key increments (golden ratio and sqrt(3) - 1, as 32-bit fractions). */
    public static final int W0 = 0x9E3779B9;
    public static final int W1 = 0xBB67AE85;

    /**
     * Ten rounds on counter {@code (c0, c1, c2, c3)} with key {@code (k0, k1)}; writes the four output words to
     * {@code out[off..off+3]}. The key is bumped between rounds, before rounds 2 to 10.
     */
    public static void block(int c0, int c1, int c2, int c3, int k0, int k1, int[] out, int off) {
        for (int round = 0; round < 10; round++) {
            if (round > 0) {
                k0 += W0;
                k1 += W1;
            }
            long p0 = (M0 & 0xFFFFFFFFL) * (c0 & 0xFFFFFFFFL);
            long p1 = (M1 & 0xFFFFFFFFL) * (c2 & 0xFFFFFFFFL);
            int n0 = (int) (p1 >>> 32) ^ c1 ^ k0;
            int n2 = (int) (p0 >>> 32) ^ c3 ^ k1;
            c1 = (int) p1;
            c3 = (int) p0;
            c0 = n0;
            c2 = n2;
        }
        out[off] = c0;
        out[off + 1] = c1;
        out[off + 2] = c2;
        out[off + 3] = c3;
    }

    /** A uniform float in {@code [0, 1)} from the top 24 bits of {@code w}. */
    public static float unitFloat(int w) {
        return (w >>> 8) * 0x1p-24f;
    }

    /** A uniform double in {@code (0, 1]} from the top 24 bits of {@code w}, safe to take the log of. */
    public static double unitOpenBelow(int w) {
        return ((w >>> 8) + 1) * 0x1p-24;
    }

    /** A uniform double in {@code [0, 1)} with 53 random bits from two words. */
    public static double unitDouble(int hi, int lo) {
        return (((long) (hi >>> 5) << 26) + (lo >>> 6)) * 0x1p-53;
    }
}
