package dev.rlx.cpu.kernels;

/**
 * Roots of unity {@code W_n^j = e^{-2 pi i j / n}} for FFT plans, accurate to about half an ulp: the index is
 * reduced exactly (integer arithmetic) to an angle in the first octant before cos and sin are taken, so large
 * n and large j lose nothing to the rounding of {@code 2 pi j / n}.
 */
final class Twiddles {
    private Twiddles() {}

    /** Real part of {@code W_n^j}, any j (negative or past n). */
    static double re(long j, long n) {
        return root(j, n, true);
    }

    /** Imaginary part of {@code W_n^j} (that is {@code -sin(2 pi j / n)}). */
    static double im(long j, long n) {
        return root(j, n, false);
    }

    /** {@code W_n^{j*step}} for {@code j = 0..count-1} into {@code re} and {@code im}. */
    static void fill(int count, long step, long n, double[] re, double[] im) {
        for (int j = 0; j < count; j++) {
            re[j] = re(j * step, n);
            im[j] = im(j * step, n);
        }
    }

    /** As {@link #fill(int, long, long, double[], double[])}, rounded to float. */
    static void fill(int count, long step, long n, float[] re, float[] im) {
        for (int j = 0; j < count; j++) {
            re[j] = (float) re(j * step, n);
            im[j] = (float) im(j * step, n);
        }
    }

    private static double root(long j, long n, boolean real) {
        long r = Math.floorMod(j, n);
        // 2 pi r / n = (pi/2) (q + rem/n): quadrant q, then the octant by folding rem past n/2
        long q = (4 * r) / n;
        long rem = 4 * r - q * n;
        boolean fold = 2 * rem > n;
        double phi = Math.PI / 2 * (double) (fold ? n - rem : rem) / n;
        double c = fold ? StrictMath.sin(phi) : StrictMath.cos(phi);
        double s = fold ? StrictMath.cos(phi) : StrictMath.sin(phi);
        // cos and sin of the full angle, rotating (c, s) by q quarter turns; W = cos - i sin
        double cos = switch ((int) q) {
            case 0 -> c;
            case 1 -> -s;
            case 2 -> -c;
            default -> s;
        };
        double sin = switch ((int) q) {
            case 0 -> s;
            case 1 -> c;
            case 2 -> -s;
            default -> -c;
        };
        return real ? cos : -sin;
    }
}
