package dev.rlx.cpu.kernels;

import java.util.ArrayList;
import java.util.List;

/**
 * The forward DFT {@code X[k] = sum_t x[t] W_n^{kt}} of any length n on split double arrays, the scalar
 * reference path. Lengths whose prime factors are all at most {@link #MAX_RADIX} run as a mixed-radix
 * Stockham autosort (radix 4 and 2, 3, and a generic odd radix for 5, 7, 11, ...): each pass reads one
 * array and writes the other in natural order, so no bit reversal is needed. Other lengths (those with a
 * large prime factor) go through {@link BluesteinFftD}.
 *
 * <p>A plan is immutable and shared by threads; each call brings its own four work arrays of at least
 * {@link #workLength()}.
 */
final class ComplexFftD {
    /** Largest prime a Stockham pass handles directly; a pass costs O(radix) per element. */
    static final int MAX_RADIX = 61;

    private final int n;
    private final int[] radices;      // passes in order; empty for n = 1 and for Bluestein lengths
    private final double[] wr;        // W_n^j, j < n
    private final double[] wi;
    private final BluesteinFftD bluestein; // non-null when a prime factor exceeds MAX_RADIX

    ComplexFftD(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("fft length must be positive but is " + n);
        }
        this.n = n;
        int[] factors = factors(n);
        boolean direct = factors.length == 0 || factors[factors.length - 1] <= MAX_RADIX;
        this.bluestein = direct ? null : new BluesteinFftD(n);
        this.radices = direct ? radices(n) : new int[0];
        this.wr = new double[direct ? n : 0];
        this.wi = new double[direct ? n : 0];
        if (direct) {
            Twiddles.fill(n, 1, n, wr, wi);
        }
    }

    int length() {
        return n;
    }

    /** Length each work array needs: n, or the padded length of a Bluestein convolution. */
    int workLength() {
        return bluestein != null ? bluestein.workLength() : n;
    }

    /**
     * Replaces {@code re[0..n), im[0..n)} by their DFT. {@code tr} and {@code ti} are scratch; all four arrays
     * hold at least {@link #workLength()} elements. Swapping {@code re} with {@code im} (and {@code tr} with
     * {@code ti}) computes the unscaled inverse instead, since {@code swap(DFT(swap(x)))} is the inverse DFT.
     */
    void forward(double[] re, double[] im, double[] tr, double[] ti) {
        if (bluestein != null) {
            bluestein.forward(re, im, tr, ti);
            return;
        }
        double[] xr = re;
        double[] xi = im;
        double[] yr = tr;
        double[] yi = ti;
        int len = n;
        int s = 1;
        for (int r : radices) {
            switch (r) {
                case 4 -> pass4(xr, xi, yr, yi, len, s);
                case 2 -> pass2(xr, xi, yr, yi, len, s);
                case 3 -> pass3(xr, xi, yr, yi, len, s);
                default -> passOdd(r, xr, xi, yr, yi, len, s);
            }
            double[] t = xr;
            xr = yr;
            yr = t;
            t = xi;
            xi = yi;
            yi = t;
            len /= r;
            s *= r;
        }
        if (xr != re) {
            System.arraycopy(xr, 0, re, 0, n);
            System.arraycopy(xi, 0, im, 0, n);
        }
    }

    // One Stockham pass of radix r over sub-transforms of length len at stride s (len * s = n): with m = len/r,
    // for p < m and q < s it reads a_j = x[q + s(p + j m)] and writes y[q + s(r p + k)] = W_len^{pk} sum_j a_j W_r^{jk}.
    // W_len^{pk} is W_n^{pks}, an index below n.

    private void pass2(double[] xr, double[] xi, double[] yr, double[] yi, int len, int s) {
        int m = len / 2;
        for (int p = 0; p < m; p++) {
            double w1r = wr[p * s];
            double w1i = wi[p * s];
            for (int q = 0; q < s; q++) {
                int a = q + s * p;
                int b = a + s * m;
                int d = q + 2 * s * p;
                double dr = xr[a] - xr[b];
                double di = xi[a] - xi[b];
                yr[d] = xr[a] + xr[b];
                yi[d] = xi[a] + xi[b];
                yr[d + s] = dr * w1r - di * w1i;
                yi[d + s] = dr * w1i + di * w1r;
            }
        }
    }

    private void pass4(double[] xr, double[] xi, double[] yr, double[] yi, int len, int s) {
        int m = len / 4;
        int sm = s * m;
        for (int p = 0; p < m; p++) {
            int t = p * s;
            double w1r = wr[t];
            double w1i = wi[t];
            double w2r = wr[2 * t];
            double w2i = wi[2 * t];
            double w3r = wr[3 * t];
            double w3i = wi[3 * t];
            for (int q = 0; q < s; q++) {
                int a = q + t;
                int d = q + 4 * t;
                double apcr = xr[a] + xr[a + 2 * sm];
                double apci = xi[a] + xi[a + 2 * sm];
                double amcr = xr[a] - xr[a + 2 * sm];
                double amci = xi[a] - xi[a + 2 * sm];
                double bpdr = xr[a + sm] + xr[a + 3 * sm];
                double bpdi = xi[a + sm] + xi[a + 3 * sm];
                double bmdr = xr[a + sm] - xr[a + 3 * sm];
                double bmdi = xi[a + sm] - xi[a + 3 * sm];
                // 4-point DFT: (a+c)+(b+d), (a-c)-i(b-d), (a+c)-(b+d), (a-c)+i(b-d)
                double x1r = amcr + bmdi;
                double x1i = amci - bmdr;
                double x2r = apcr - bpdr;
                double x2i = apci - bpdi;
                double x3r = amcr - bmdi;
                double x3i = amci + bmdr;
                yr[d] = apcr + bpdr;
                yi[d] = apci + bpdi;
                yr[d + s] = x1r * w1r - x1i * w1i;
                yi[d + s] = x1r * w1i + x1i * w1r;
                yr[d + 2 * s] = x2r * w2r - x2i * w2i;
                yi[d + 2 * s] = x2r * w2i + x2i * w2r;
                yr[d + 3 * s] = x3r * w3r - x3i * w3i;
                yi[d + 3 * s] = x3r * w3i + x3i * w3r;
            }
        }
    }

    private static final double SIN_60 = Math.sqrt(3) / 2;

    private void pass3(double[] xr, double[] xi, double[] yr, double[] yi, int len, int s) {
        int m = len / 3;
        int sm = s * m;
        for (int p = 0; p < m; p++) {
            int t = p * s;
            double w1r = wr[t];
            double w1i = wi[t];
            double w2r = wr[2 * t];
            double w2i = wi[2 * t];
            for (int q = 0; q < s; q++) {
                int a = q + t;
                int d = q + 3 * t;
                double sumr = xr[a + sm] + xr[a + 2 * sm];
                double sumi = xi[a + sm] + xi[a + 2 * sm];
                double difr = xr[a + sm] - xr[a + 2 * sm];
                double difi = xi[a + sm] - xi[a + 2 * sm];
                // W_3 = -1/2 - i sqrt(3)/2: y1, y2 = a - (b+c)/2 -+ i sqrt(3)/2 (b-c)
                double midr = xr[a] - 0.5 * sumr;
                double midi = xi[a] - 0.5 * sumi;
                double rotr = SIN_60 * difi;
                double roti = -SIN_60 * difr;
                double x1r = midr + rotr;
                double x1i = midi + roti;
                double x2r = midr - rotr;
                double x2i = midi - roti;
                yr[d] = xr[a] + sumr;
                yi[d] = xi[a] + sumi;
                yr[d + s] = x1r * w1r - x1i * w1i;
                yi[d + s] = x1r * w1i + x1i * w1r;
                yr[d + 2 * s] = x2r * w2r - x2i * w2i;
                yi[d + 2 * s] = x2r * w2i + x2i * w2r;
            }
        }
    }

    /** Any odd radix r as an r-point DFT per butterfly, O(r) per element (5, 7 and the primes up to MAX_RADIX). */
    private void passOdd(int r, double[] xr, double[] xi, double[] yr, double[] yi, int len, int s) {
        int m = len / r;
        int sm = s * m;
        int step = n / r; // W_r^e = W_n^{e n/r}
        for (int p = 0; p < m; p++) {
            int t = p * s;
            for (int q = 0; q < s; q++) {
                int a = q + t;
                int d = q + r * t;
                for (int k = 0; k < r; k++) {
                    double sr = 0;
                    double si = 0;
                    for (int j = 0, e = 0; j < r; j++, e += k) { // e = jk mod r
                        if (e >= r) {
                            e -= r;
                        }
                        double cr = wr[e * step];
                        double ci = wi[e * step];
                        double ar = xr[a + j * sm];
                        double ai = xi[a + j * sm];
                        sr += ar * cr - ai * ci;
                        si += ar * ci + ai * cr;
                    }
                    int tw = k * t; // W_len^{pk} = W_n^{pks}
                    yr[d + k * s] = sr * wr[tw] - si * wi[tw];
                    yi[d + k * s] = sr * wi[tw] + si * wr[tw];
                }
            }
        }
    }

    /** Pass order: radix 4 while it divides, then 2, then the odd primes ascending. */
    private static int[] radices(int n) {
        List<Integer> out = new ArrayList<>();
        int rest = n;
        while (rest % 4 == 0) {
            out.add(4);
            rest /= 4;
        }
        if (rest % 2 == 0) {
            out.add(2);
            rest /= 2;
        }
        for (int f : factors(rest)) {
            out.add(f);
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Prime factors of {@code n} ascending, with repetition; empty for n = 1. */
    static int[] factors(int n) {
        List<Integer> out = new ArrayList<>();
        int rest = n;
        for (int p = 2; (long) p * p <= rest; p++) {
            while (rest % p == 0) {
                out.add(p);
                rest /= p;
            }
        }
        if (rest > 1) {
            out.add(rest);
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }
}
