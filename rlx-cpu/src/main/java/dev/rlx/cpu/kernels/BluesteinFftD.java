package dev.rlx.cpu.kernels;

/**
 * Bluestein's chirp-z DFT for lengths with a large prime factor: with the chirp {@code c[t] = W_{2n}^{t^2}},
 * {@code X[k] = c[k] sum_t (x[t] c[t]) conj(c[k-t])}, a convolution done by power-of-two FFTs of length
 * {@code m >= 2n-1}. The FFT of the conjugate chirp (wrapped, divided by m for the inverse) is computed once
 * per plan; a call costs two length-m FFTs. Immutable; callers bring the work arrays.
 */
final class BluesteinFftD {
    private final int n;
    private final int m;
    private final ComplexFftD inner;  // power of two, so never Bluestein itself
    private final double[] cr;        // chirp W_{2n}^{t^2}, t < n
    private final double[] ci;
    private final double[] kr;        // FFT_m of the wrapped conjugate chirp, / m
    private final double[] ki;

    BluesteinFftD(int n) {
        this.n = n;
        if (n > 1 << 29) {
            throw new IllegalArgumentException("fft length " + n + " needs a Bluestein convolution longer than 2^30");
        }
        int want = 2 * n - 1;
        this.m = Integer.highestOneBit(want) == want ? want : Integer.highestOneBit(want) << 1;
        this.inner = new ComplexFftD(m);
        this.cr = new double[n];
        this.ci = new double[n];
        for (int t = 0; t < n; t++) {
            long e = (long) t * t % (2L * n); // exact: t^2 < 2^62
            cr[t] = Twiddles.re(e, 2L * n);
            ci[t] = Twiddles.im(e, 2L * n);
        }
        this.kr = new double[m];
        this.ki = new double[m];
        double[] tr = new double[m];
        double[] ti = new double[m];
        for (int t = 0; t < n; t++) {
            kr[t] = cr[t] / m;
            ki[t] = -ci[t] / m;
            if (t > 0) {
                kr[m - t] = kr[t];
                ki[m - t] = ki[t];
            }
        }
        inner.forward(kr, ki, tr, ti);
    }

    int workLength() {
        return m;
    }

    /** {@link ComplexFftD#forward} for this length; the arrays hold at least {@link #workLength()} elements. */
    void forward(double[] re, double[] im, double[] tr, double[] ti) {
        for (int t = 0; t < n; t++) {
            double r = re[t] * cr[t] - im[t] * ci[t];
            im[t] = re[t] * ci[t] + im[t] * cr[t];
            re[t] = r;
        }
        java.util.Arrays.fill(re, n, m, 0);
        java.util.Arrays.fill(im, n, m, 0);
        inner.forward(re, im, tr, ti);
        for (int k = 0; k < m; k++) {
            double r = re[k] * kr[k] - im[k] * ki[k];
            im[k] = re[k] * ki[k] + im[k] * kr[k];
            re[k] = r;
        }
        inner.forward(im, re, ti, tr); // swapped: the inverse DFT
        for (int k = 0; k < n; k++) {
            double r = re[k] * cr[k] - im[k] * ci[k];
            im[k] = re[k] * ci[k] + im[k] * cr[k];
            re[k] = r;
        }
    }
}
