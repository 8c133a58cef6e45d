package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * An f32 DFT of even non-power-of-two length {@code n = 2h} as one radix-2 decimation-in-time step over two
 * length-h {@link BluesteinFftF32} convolutions: with E and O the DFTs of the even and odd samples,
 * {@code X[k] = E[k] + W_n^k O[k]} and {@code X[k+h] = E[k] - W_n^k O[k]}. Each convolution pads to
 * {@code m_h >= 2h-1}, half the padded length of a length-n Bluestein, so the work is four FFTs of length
 * {@code m/2} instead of two of length m (measured faster: the shorter transforms stay in L1).
 */
final class EvenBluesteinFftF32 {
    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final int h;
    private final BluesteinFftF32 half;
    private final float[] tr;   // W_n^k, k < h
    private final float[] ti;

    /** Whether {@code n} takes this path: even, and its half a length {@link BluesteinFftF32} takes. */
    static boolean supports(int n) {
        return n % 2 == 0 && BluesteinFftF32.supports(n / 2);
    }

    EvenBluesteinFftF32(int n) {
        this.h = n / 2;
        this.half = new BluesteinFftF32(h);
        this.tr = new float[h];
        this.ti = new float[h];
        Twiddles.fill(h, 1, n, tr, ti);
    }

    long scratchBytes() {
        return 2 * half.scratchBytes();
    }

    /** This plan bound to a fresh workspace; {@code scratch} is {@link #scratchBytes()} of native memory. */
    ComplexFftF32 bind(MemorySegment scratch) {
        Pow2FftF32.Work w = half.newWork();
        MemorySegment a = scratch.asSlice(0, half.scratchBytes());
        MemorySegment b = scratch.asSlice(half.scratchBytes(), half.scratchBytes());
        return (in, inOff, out, outOff, scale, inverse) -> {
            half.convolve(in, inOff, 16, inverse, w, a);
            half.convolve(in, inOff + 8, 16, inverse, w, b);
            combine(a, b, out, outOff, scale, inverse);
        };
    }

    /**
     * {@code E = c a}, {@code O = c b} (c the half-length chirp), then the butterflies into bins k and k+h,
     * scaled, re and im swapped back for the inverse.
     */
    private void combine(MemorySegment a, MemorySegment b, MemorySegment out, long outOff, float scale, boolean swap) {
        float[] cr = half.cr;
        float[] ci = half.ci;
        long hi = 8L * h;
        int k = 0;
        for (; k + W <= h; k += W) {
            long at = 8L * k;
            FloatVector a0 = FloatVector.fromMemorySegment(F, a, at, LE);
            FloatVector a1 = FloatVector.fromMemorySegment(F, a, at + 4L * W, LE);
            FloatVector b0 = FloatVector.fromMemorySegment(F, b, at, LE);
            FloatVector b1 = FloatVector.fromMemorySegment(F, b, at + 4L * W, LE);
            FloatVector ar = ComplexLanes.RE.selectFrom(a0, a1);
            FloatVector ai = ComplexLanes.IM.selectFrom(a0, a1);
            FloatVector br = ComplexLanes.RE.selectFrom(b0, b1);
            FloatVector bi = ComplexLanes.IM.selectFrom(b0, b1);
            FloatVector c = FloatVector.fromArray(F, cr, k).mul(scale);
            FloatVector s = FloatVector.fromArray(F, ci, k).mul(scale);
            FloatVector er = ar.mul(c).sub(ai.mul(s));
            FloatVector ei = ar.mul(s).add(ai.mul(c));
            FloatVector or = br.mul(c).sub(bi.mul(s));
            FloatVector oi = br.mul(s).add(bi.mul(c));
            FloatVector wr = FloatVector.fromArray(F, tr, k);
            FloatVector wi = FloatVector.fromArray(F, ti, k);
            FloatVector pr = or.mul(wr).sub(oi.mul(wi));
            FloatVector pi = or.mul(wi).add(oi.mul(wr));
            FloatVector xr = er.add(pr);
            FloatVector xi = ei.add(pi);
            FloatVector yr = er.sub(pr);
            FloatVector yi = ei.sub(pi);
            long to = outOff + at;
            ComplexLanes.ZIP_LO.selectFrom(swap ? xi : xr, swap ? xr : xi).intoMemorySegment(out, to, LE);
            ComplexLanes.ZIP_HI.selectFrom(swap ? xi : xr, swap ? xr : xi).intoMemorySegment(out, to + 4L * W, LE);
            ComplexLanes.ZIP_LO.selectFrom(swap ? yi : yr, swap ? yr : yi).intoMemorySegment(out, to + hi, LE);
            ComplexLanes.ZIP_HI.selectFrom(swap ? yi : yr, swap ? yr : yi).intoMemorySegment(out, to + hi + 4L * W, LE);
        }
        int re = swap ? 1 : 0;
        for (; k < h; k++) {
            float ar = a.getAtIndex(JAVA_FLOAT, 2L * k);
            float ai = a.getAtIndex(JAVA_FLOAT, 2L * k + 1);
            float br = b.getAtIndex(JAVA_FLOAT, 2L * k);
            float bi = b.getAtIndex(JAVA_FLOAT, 2L * k + 1);
            float c = cr[k] * scale;
            float s = ci[k] * scale;
            float er = ar * c - ai * s;
            float ei = ar * s + ai * c;
            float or = br * c - bi * s;
            float oi = br * s + bi * c;
            float pr = or * tr[k] - oi * ti[k];
            float pi = or * ti[k] + oi * tr[k];
            long to = outOff + 8L * k;
            out.set(JAVA_FLOAT_UNALIGNED, to + 4 * re, er + pr);
            out.set(JAVA_FLOAT_UNALIGNED, to + 4 * (1 - re), ei + pi);
            out.set(JAVA_FLOAT_UNALIGNED, to + hi + 4 * re, er - pr);
            out.set(JAVA_FLOAT_UNALIGNED, to + hi + 4 * (1 - re), ei - pi);
        }
    }
}
