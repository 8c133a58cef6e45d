package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link BluesteinFftD}'s chirp-z DFT in f32 on the vector FFT, for f32 and c64 lengths that are not powers of
 * two: {@code X[k] = c[k] sum_t (x[t] c[t]) conj(c[k-t])} with {@code c[t] = W_{2n}^{t^2}}, the convolution
 * done by two {@link Pow2FftF32} transforms of length {@code m >= 2n-1} in one per-part scratch line. The chirp
 * and the FFT of the wrapped conjugate chirp (over m) are computed in double once per plan and rounded, so the
 * f32 error is that of the three pointwise products and two length-m FFTs (about {@code 1e-6} of the
 * spectrum's largest bin). The inverse swaps re and im on the way in and out.
 */
final class BluesteinFftF32 {
    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Longest length taken here: the f32 work arrays of the inner FFT stay far below 2^31 elements. */
    private static final int MAX_N = 1 << 24;

    private final int n;
    private final int m;
    private final Pow2FftF32 inner;
    final float[] cr;           // chirp W_{2n}^{t^2}, t < n
    final float[] ci;
    private final float[] kr;   // FFT_m of the wrapped conjugate chirp, / m
    private final float[] ki;

    /** Whether this path takes {@code n} complex points: not a power of two, and a convolution the vector FFT takes. */
    static boolean supports(int n) {
        return n > 1 && Integer.bitCount(n) != 1 && n <= MAX_N && Pow2FftF32.supports(paddedLength(n));
    }

    private static int paddedLength(int n) {
        return Integer.highestOneBit(2 * n - 1) << 1; // 2n-1 is odd, never a power of two for n > 1
    }

    BluesteinFftF32(int n) {
        if (!supports(n)) {
            throw new IllegalArgumentException("fft length " + n + " does not take the f32 Bluestein path");
        }
        this.n = n;
        this.m = paddedLength(n);
        this.inner = new Pow2FftF32(m);
        this.cr = new float[n];
        this.ci = new float[n];
        double[] wr = new double[m];
        double[] wi = new double[m];
        for (int t = 0; t < n; t++) {
            long e = (long) t * t % (2L * n); // exact: t^2 < 2^48
            double re = Twiddles.re(e, 2L * n);
            double im = Twiddles.im(e, 2L * n);
            cr[t] = (float) re;
            ci[t] = (float) im;
            wr[t] = re / m;
            wi[t] = -im / m;
            if (t > 0) {
                wr[m - t] = wr[t];
                wi[m - t] = wi[t];
            }
        }
        new ComplexFftD(m).forward(wr, wi, new double[m], new double[m]);
        this.kr = new float[m];
        this.ki = new float[m];
        for (int k = 0; k < m; k++) {
            kr[k] = (float) wr[k];
            ki[k] = (float) wi[k];
        }
    }

    /** This plan bound to a fresh workspace; {@code scratch} is {@link #scratchBytes()} of native memory. */
    ComplexFftF32 bind(MemorySegment scratch) {
        Pow2FftF32.Work w = inner.newWork();
        return (in, inOff, out, outOff, scale, inverse) -> transform(in, inOff, out, outOff, scale, inverse, w, scratch);
    }

    long scratchBytes() {
        return 8L * m;
    }

    Pow2FftF32.Work newWork() {
        return inner.newWork();
    }

    private void transform(MemorySegment in, long inOff, MemorySegment out, long outOff, float scale, boolean inverse,
                           Pow2FftF32.Work w, MemorySegment a) {
        convolve(in, inOff, 8, inverse, w, a);
        chirpOut(a, out, outOff, scale, inverse);
    }

    /**
     * Everything but the last chirp product: {@code a[k] = sum_t (x[t] c[t]) conj(c[k-t])}, k &lt; n, for the n
     * complex values {@code strideBytes} apart from byte offset {@code inOff} (re and im swapped with {@code swap}).
     */
    void convolve(MemorySegment in, long inOff, long strideBytes, boolean swap, Pow2FftF32.Work w, MemorySegment a) {
        chirpIn(in, inOff, strideBytes, swap, a);
        inner.transform(a, 0, a, 0, 1f, false, w);
        multiplyKernel(a);
        inner.transform(a, 0, a, 0, 1f, true, w);
    }

    /** {@code a[t] = x[t] c[t]} for {@code t < n} (x with re and im swapped for the inverse), zero up to m. */
    private void chirpIn(MemorySegment in, long inOff, long strideBytes, boolean swap, MemorySegment a) {
        FloatVector reLanes = swap ? ComplexLanes.IM : ComplexLanes.RE;
        FloatVector imLanes = swap ? ComplexLanes.RE : ComplexLanes.IM;
        int t = 0;
        for (; strideBytes == 8 && t + W <= n; t += W) {
            long at = inOff + 8L * t;
            FloatVector v0 = FloatVector.fromMemorySegment(F, in, at, LE);
            FloatVector v1 = FloatVector.fromMemorySegment(F, in, at + 4L * W, LE);
            FloatVector xr = reLanes.selectFrom(v0, v1);
            FloatVector xi = imLanes.selectFrom(v0, v1);
            FloatVector c = FloatVector.fromArray(F, cr, t);
            FloatVector s = FloatVector.fromArray(F, ci, t);
            FloatVector yr = xr.mul(c).sub(xi.mul(s));
            FloatVector yi = xr.mul(s).add(xi.mul(c));
            ComplexLanes.ZIP_LO.selectFrom(yr, yi).intoMemorySegment(a, 8L * t, LE);
            ComplexLanes.ZIP_HI.selectFrom(yr, yi).intoMemorySegment(a, 8L * t + 4L * W, LE);
        }
        int re = swap ? 1 : 0;
        for (; t < n; t++) {
            float xr = in.get(JAVA_FLOAT_UNALIGNED, inOff + strideBytes * t + 4 * re);
            float xi = in.get(JAVA_FLOAT_UNALIGNED, inOff + strideBytes * t + 4 * (1 - re));
            a.setAtIndex(JAVA_FLOAT, 2L * t, xr * cr[t] - xi * ci[t]);
            a.setAtIndex(JAVA_FLOAT, 2L * t + 1, xr * ci[t] + xi * cr[t]);
        }
        zero(a, 2L * n, 2L * m);
    }

    /** Floats {@code from..to} of a set to zero. */
    private static void zero(MemorySegment a, long from, long to) {
        long f = from;
        for (; f < to && f % W != 0; f++) {
            a.setAtIndex(JAVA_FLOAT, f, 0f);
        }
        FloatVector z = FloatVector.zero(F);
        for (; f + W <= to; f += W) {
            z.intoMemorySegment(a, 4 * f, LE);
        }
        for (; f < to; f++) {
            a.setAtIndex(JAVA_FLOAT, f, 0f);
        }
    }

    /** The convolution's pointwise product with the chirp kernel's spectrum, all m bins (a multiple of W). */
    private void multiplyKernel(MemorySegment a) {
        for (int k = 0; k < m; k += W) {
            long at = 8L * k;
            FloatVector v0 = FloatVector.fromMemorySegment(F, a, at, LE);
            FloatVector v1 = FloatVector.fromMemorySegment(F, a, at + 4L * W, LE);
            FloatVector xr = ComplexLanes.RE.selectFrom(v0, v1);
            FloatVector xi = ComplexLanes.IM.selectFrom(v0, v1);
            FloatVector c = FloatVector.fromArray(F, kr, k);
            FloatVector s = FloatVector.fromArray(F, ki, k);
            FloatVector yr = xr.mul(c).sub(xi.mul(s));
            FloatVector yi = xr.mul(s).add(xi.mul(c));
            ComplexLanes.ZIP_LO.selectFrom(yr, yi).intoMemorySegment(a, at, LE);
            ComplexLanes.ZIP_HI.selectFrom(yr, yi).intoMemorySegment(a, at + 4L * W, LE);
        }
    }

    /** {@code y[k] = scale * a[k] c[k]} for {@code k < n}, re and im swapped back for the inverse. */
    private void chirpOut(MemorySegment a, MemorySegment out, long outOff, float scale, boolean swap) {
        int k = 0;
        for (; k + W <= n; k += W) {
            long at = 8L * k;
            FloatVector v0 = FloatVector.fromMemorySegment(F, a, at, LE);
            FloatVector v1 = FloatVector.fromMemorySegment(F, a, at + 4L * W, LE);
            FloatVector xr = ComplexLanes.RE.selectFrom(v0, v1);
            FloatVector xi = ComplexLanes.IM.selectFrom(v0, v1);
            FloatVector c = FloatVector.fromArray(F, cr, k).mul(scale);
            FloatVector s = FloatVector.fromArray(F, ci, k).mul(scale);
            FloatVector yr = xr.mul(c).sub(xi.mul(s));
            FloatVector yi = xr.mul(s).add(xi.mul(c));
            FloatVector first = swap ? yi : yr;
            FloatVector second = swap ? yr : yi;
            long to = outOff + at;
            ComplexLanes.ZIP_LO.selectFrom(first, second).intoMemorySegment(out, to, LE);
            ComplexLanes.ZIP_HI.selectFrom(first, second).intoMemorySegment(out, to + 4L * W, LE);
        }
        int re = swap ? 1 : 0;
        for (; k < n; k++) {
            float xr = a.getAtIndex(JAVA_FLOAT, 2L * k);
            float xi = a.getAtIndex(JAVA_FLOAT, 2L * k + 1);
            float c = cr[k] * scale;
            float s = ci[k] * scale;
            out.set(JAVA_FLOAT_UNALIGNED, outOff + 8L * k + 4 * re, xr * c - xi * s);
            out.set(JAVA_FLOAT_UNALIGNED, outOff + 8L * k + 4 * (1 - re), xr * s + xi * c);
        }
    }
}
