package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.FftKind;
import java.lang.foreign.MemorySegment;

/**
 * Any Fft line in double precision, for every length, kind and scalar type (f32, c64 or f64): the reference
 * path, and the one f64 and non-power-of-two f32 transforms take. The line is loaded into split double
 * arrays, transformed by a {@link ComplexFftD} and stored scaled and rounded to the output type.
 *
 * <p>Real transforms of even length {@code n = 2h} run as one complex transform of length h: the samples
 * pair up as {@code z[t] = x[2t] + i x[2t+1]}, and with {@code Z = DFT_h(z)} the even and odd halves'
 * spectra are {@code E[k] = (Z[k] + conj Z[h-k]) / 2} and {@code O[k] = (Z[k] - conj Z[h-k]) / 2i}, so
 * {@code X[k] = E[k] + W_n^k O[k]} ({@link #split}); irfft runs that backwards ({@link #merge}). Odd real
 * lengths transform the full complex line.
 */
final class ScalarFftLine implements FftLine {
    private final FftKind kind;
    private final int n;
    private final boolean f64;
    private final double scale;
    private final boolean half;     // even real length through a length-n/2 complex transform
    private final ComplexFftD plan; // length n, or n/2 when half
    private final double[] hr;      // W_n^k, k <= n/2, when half
    private final double[] hi;
    private final double[][] re;    // per part, each plan.workLength() + 1 long
    private final double[][] im;
    private final double[][] tr;
    private final double[][] ti;

    ScalarFftLine(FftKind kind, int n, boolean f64, double scale, int parts) {
        this.kind = kind;
        this.n = n;
        this.f64 = f64;
        this.scale = scale;
        this.half = kind != FftKind.C2C_FORWARD && kind != FftKind.C2C_INVERSE && n % 2 == 0;
        this.plan = new ComplexFftD(half ? n / 2 : n);
        this.hr = new double[half ? n / 2 + 1 : 0];
        this.hi = new double[hr.length];
        Twiddles.fill(hr.length, 1, n, hr, hi);
        int len = plan.workLength() + 1; // + 1: bin n/2 of a half-length real spectrum
        this.re = new double[parts][len];
        this.im = new double[parts][len];
        this.tr = new double[parts][len];
        this.ti = new double[parts][len];
    }

    @Override
    public void run(MemorySegment x, long xOff, long xStride, MemorySegment y, long yOff, long yStride, int part) {
        double[] r = re[part];
        double[] i = im[part];
        double[] sr = tr[part];
        double[] si = ti[part];
        int bins = n / 2 + 1;
        switch (kind) {
            case C2C_FORWARD, C2C_INVERSE -> {
                loadComplex(x, xOff, xStride, r, i, n);
                if (kind == FftKind.C2C_FORWARD) {
                    plan.forward(r, i, sr, si);
                } else {
                    plan.forward(i, r, si, sr);
                }
                storeComplex(r, i, n, y, yOff, yStride);
            }
            case R2C -> {
                if (half) {
                    int h = n / 2;
                    for (int t = 0; t < h; t++) {
                        r[t] = get(x, xOff + 2 * t * xStride);
                        i[t] = get(x, xOff + (2 * t + 1) * xStride);
                    }
                    plan.forward(r, i, sr, si);
                    split(r, i, sr, si);
                    storeComplex(sr, si, bins, y, yOff, yStride);
                } else {
                    for (int t = 0; t < n; t++) {
                        r[t] = get(x, xOff + t * xStride);
                        i[t] = 0;
                    }
                    plan.forward(r, i, sr, si);
                    storeComplex(r, i, bins, y, yOff, yStride);
                }
            }
            case C2R -> {
                if (half) {
                    int h = n / 2;
                    loadComplex(x, xOff, xStride, sr, si, bins);
                    merge(sr, si, r, i);
                    plan.forward(i, r, si, sr);
                    for (int t = 0; t < h; t++) {
                        set(y, yOff + 2 * t * yStride, scale * r[t]);
                        set(y, yOff + (2 * t + 1) * yStride, scale * i[t]);
                    }
                } else {
                    loadComplex(x, xOff, xStride, r, i, bins);
                    for (int k = bins; k < n; k++) { // Hermitian: X[k] = conj X[n-k]
                        r[k] = r[n - k];
                        i[k] = -i[n - k];
                    }
                    plan.forward(i, r, si, sr);
                    for (int t = 0; t < n; t++) {
                        set(y, yOff + t * yStride, scale * r[t]);
                    }
                }
            }
        }
    }

    /** Bins {@code 0..h} of a real signal's spectrum ({@code out}) from {@code Z = DFT_h(z)} ({@code z}). */
    private void split(double[] zr, double[] zi, double[] outR, double[] outI) {
        int h = n / 2;
        for (int k = 0; k <= h; k++) {
            int a = k == h ? 0 : k;
            int b = k == 0 ? 0 : h - k;
            // E = (Z[k] + conj Z[h-k]) / 2, O = (Z[k] - conj Z[h-k]) / 2i
            double er = 0.5 * (zr[a] + zr[b]);
            double ei = 0.5 * (zi[a] - zi[b]);
            double or = 0.5 * (zi[a] + zi[b]);
            double oi = -0.5 * (zr[a] - zr[b]);
            outR[k] = er + hr[k] * or - hi[k] * oi;
            outI[k] = ei + hr[k] * oi + hi[k] * or;
        }
    }

    /**
     * The length-h complex spectrum {@code 2 Z = 2 (E + i O)} whose inverse transform interleaves the even and
     * odd samples, from bins {@code 0..h}; the imaginary parts of bins 0 and h are ignored.
     */
    private void merge(double[] xr, double[] xi, double[] zr, double[] zi) {
        int h = n / 2;
        zr[0] = xr[0] + xr[h]; // 2E = X0 + Xh and 2O = X0 - Xh, both real
        zi[0] = xr[0] - xr[h];
        for (int k = 1; k < h; k++) {
            // 2E = X[k] + conj X[h-k]; 2O = conj(W^k) (X[k] - conj X[h-k])
            double er = xr[k] + xr[h - k];
            double ei = xi[k] - xi[h - k];
            double dr = xr[k] - xr[h - k];
            double di = xi[k] + xi[h - k];
            double or = dr * hr[k] + di * hi[k];
            double oi = di * hr[k] - dr * hi[k];
            zr[k] = er - oi;
            zi[k] = ei + or;
        }
    }

    private void loadComplex(MemorySegment x, long off, long stride, double[] r, double[] i, int count) {
        for (int k = 0; k < count; k++) {
            long at = off + k * stride;
            r[k] = get(x, at);
            i[k] = get(x, at + 1);
        }
    }

    private void storeComplex(double[] r, double[] i, int count, MemorySegment y, long off, long stride) {
        for (int k = 0; k < count; k++) {
            long at = off + k * stride;
            set(y, at, scale * r[k]);
            set(y, at + 1, scale * i[k]);
        }
    }

    private double get(MemorySegment s, long index) {
        return f64 ? s.getAtIndex(JAVA_DOUBLE, index) : s.getAtIndex(JAVA_FLOAT, index);
    }

    private void set(MemorySegment s, long index, double v) {
        if (f64) {
            s.setAtIndex(JAVA_DOUBLE, index, v);
        } else {
            s.setAtIndex(JAVA_FLOAT, index, (float) v);
        }
    }
}
