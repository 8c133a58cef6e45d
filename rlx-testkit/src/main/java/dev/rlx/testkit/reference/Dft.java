package dev.rlx.testkit.reference;

/**
 * The discrete Fourier transform computed directly from its definition in float64, the reference for the FFT
 * tests: {@code X[k] = sum_t x[t] e^{-+2 pi i kt/n}} with {@code kt} reduced mod n exactly, so the only
 * rounding is in the n-term sums. Complex data is interleaved (re, im); results are unscaled.
 */
public final class Dft {
    private final int n;
    private final double[] cos; // cos(2 pi j / n), j < n
    private final double[] sin;

    public Dft(int n) {
        this.n = n;
        this.cos = new double[n];
        this.sin = new double[n];
        for (int j = 0; j < n; j++) {
            cos[j] = Math.cos(2 * Math.PI * j / n);
            sin[j] = Math.sin(2 * Math.PI * j / n);
        }
    }

    /** Bin k of the transform of n interleaved complex values (inverse: the {@code e^{+...}} sum). */
    public double[] bin(double[] x, int k, boolean inverse) {
        double re = 0;
        double im = 0;
        double sign = inverse ? 1 : -1;
        int step = Math.floorMod(k, n);
        for (int t = 0, j = 0; t < n; t++, j = j + step >= n ? j + step - n : j + step) { // j = k t mod n
            double c = cos[j];
            double s = sign * sin[j];
            re += x[2 * t] * c - x[2 * t + 1] * s;
            im += x[2 * t] * s + x[2 * t + 1] * c;
        }
        return new double[] {re, im};
    }

    /** The whole transform, interleaved. */
    public double[] transform(double[] x, boolean inverse) {
        double[] out = new double[2 * n];
        for (int k = 0; k < n; k++) {
            double[] b = bin(x, k, inverse);
            out[2 * k] = b[0];
            out[2 * k + 1] = b[1];
        }
        return out;
    }

    /** Bins {@code 0..n/2} of the forward transform of n real values, interleaved. */
    public double[] real(double[] x) {
        double[] out = new double[2 * (n / 2 + 1)];
        double[] c = complex(x);
        for (int k = 0; k <= n / 2; k++) {
            double[] b = bin(c, k, false);
            out[2 * k] = b[0];
            out[2 * k + 1] = b[1];
        }
        return out;
    }

    /**
     * The real part of the inverse transform of the Hermitian spectrum whose bins {@code 0..n/2} are given
     * (interleaved) and whose bin {@code n-k} is the conjugate of bin k: numpy's {@code irfft} unscaled.
     */
    public double[] hermitianInverse(double[] half) {
        double[] full = new double[2 * n];
        for (int k = 0; k < n; k++) {
            int src = k <= n / 2 ? k : n - k;
            full[2 * k] = half[2 * src];
            full[2 * k + 1] = k <= n / 2 ? half[2 * src + 1] : -half[2 * src + 1];
        }
        double[] out = new double[n];
        for (int t = 0; t < n; t++) {
            out[t] = bin(full, t, true)[0];
        }
        return out;
    }

    /** Real values as interleaved complex with zero imaginary parts. */
    public static double[] complex(double[] real) {
        double[] c = new double[2 * real.length];
        for (int i = 0; i < real.length; i++) {
            c[2 * i] = real[i];
        }
        return c;
    }

    /** Root mean square of the (re, im) pairs or real values: {@code sqrt(sum v^2 / count)}. */
    public static double rms(double[] v, int count) {
        double s = 0;
        for (double d : v) {
            s += d * d;
        }
        return Math.sqrt(s / Math.max(1, count));
    }
}
