package dev.rlx.cpu.kernels;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The forward DFT of a power-of-two number of interleaved f32 complex values ({@code N >= W*W}, W the float
 * lanes per vector) on the Vector API, as a four-step FFT with {@code N = N1 N2}:
 * <ol>
 *   <li>the input viewed as {@code N1 x N2} row-major, each column {@code n2} is transformed over {@code n1},
 *       W adjacent columns at a time, and multiplied by {@code W_N^{n2 k1}} into the buffer
 *       {@code b[k1][n2]};
 *   <li>each row {@code k1} of b is transformed over {@code n2}, W adjacent rows at a time, giving
 *       {@code X[k1 + N1 k2]}.
 * </ol>
 * W adjacent columns (rows) are W independent transforms: lane l of work element e holds element e of column
 * (row) l, so every butterfly is plain lane-wise arithmetic with one broadcast twiddle, and loads and stores are
 * whole contiguous vectors (step 2 gathers its rows from b). Within a step the transform is a
 * radix-4 Stockham autosort (a radix-2 pass when log2 is odd) over split re/im work arrays that fit the cache;
 * N1 and N2 are near {@code sqrt N}, so 2^20 points work in 2^10-point pieces. The input is de-interleaved as
 * step 1 loads it and the output interleaved (and scaled) as step 2 stores it, so whatever N is, each value is
 * read once, written to b and read back once, and written once.
 *
 * <p>The inverse comes from the same code with re and im swapped on the way in and out
 * ({@code swap(DFT(swap x))} is the inverse DFT). A plan is immutable; each thread brings its own {@link Work}.
 * Every method holding vectors runs its whole loop, so no vector crosses a call the JIT might not inline.
 */
final class Pow2FftF32 {
    private static final VectorSpecies<Float> F = VectorMath.F;
    static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    /**
     * Floats of padding after each row of b: with rows a power of two apart, the W rows step 2 gathers from (and
     * the rows step 1 writes) would all fall in the same cache sets; one cache line more per row spreads them.
     */
    private static final int ROW_PAD = 16;

    private final int n;
    private final int n1;
    private final int n2;
    private final int rowStride;   // floats between rows of b: N2 + ROW_PAD
    private final float[] t1r;   // W_{N1}^j, j < N1: step 1 butterflies
    private final float[] t1i;
    private final float[] t2r;   // W_{N2}^j, j < N2: step 2 butterflies
    private final float[] t2i;
    private final float[] colr;  // W_N^{k1 l} at [k1 * W + l]: the lane factor of the step 1 twiddle
    private final float[] coli;
    private final float[] grpr;  // W_N^{W j}, j < N/W: the column-group factor, W_N^{k1 W g} at j = k1 g
    private final float[] grpi;
    private final int[] rowGather; // lane l -> offset l * rowStride: W rows of b

    /** Whether {@code n} complex points can take this path. */
    static boolean supports(int n) {
        return Integer.bitCount(n) == 1 && n >= W * W;
    }

    Pow2FftF32(int n) {
        if (!supports(n)) {
            throw new IllegalArgumentException(n + " is not a power of two of at least " + W * W);
        }
        int log = Integer.numberOfTrailingZeros(n);
        this.n = n;
        this.n1 = 1 << ((log + 1) / 2);
        this.n2 = n / n1;
        this.rowStride = n2 + ROW_PAD;
        t1r = new float[n1];
        t1i = new float[n1];
        Twiddles.fill(n1, 1, n1, t1r, t1i);
        t2r = new float[n2];
        t2i = new float[n2];
        Twiddles.fill(n2, 1, n2, t2r, t2i);
        colr = new float[n1 * W];
        coli = new float[n1 * W];
        for (int k1 = 0; k1 < n1; k1++) {
            for (int l = 0; l < W; l++) {
                colr[k1 * W + l] = (float) Twiddles.re((long) k1 * l, n);
                coli[k1 * W + l] = (float) Twiddles.im((long) k1 * l, n);
            }
        }
        grpr = new float[n / W];
        grpi = new float[n / W];
        Twiddles.fill(n / W, W, n, grpr, grpi);
        rowGather = new int[W];
        for (int l = 0; l < W; l++) {
            rowGather[l] = l * rowStride;
        }
    }

    int length() {
        return n;
    }

    /** Per-thread workspace: the N1 x N2 buffer b (rows padded) and two ping-pong work arrays. */
    static final class Work {
        final float[] br;
        final float[] bi;
        final float[] ar;
        final float[] ai;
        final float[] cr;
        final float[] ci;

        private Work(int bLength, int workLength) {
            br = new float[bLength];
            bi = new float[bLength];
            ar = new float[workLength];
            ai = new float[workLength];
            cr = new float[workLength];
            ci = new float[workLength];
        }
    }

    Work newWork() {
        return new Work(n1 * rowStride, Math.max(n1, n2) * W);
    }

    /**
     * Writes {@code scale * DFT(x)} (or, with {@code inverse}, the unscaled inverse DFT times {@code scale}) of
     * the N complex values at byte offset {@code inOff} of {@code in} to byte offset {@code outOff} of
     * {@code out}. Input and output may be the same memory.
     */
    void transform(MemorySegment in, long inOff, MemorySegment out, long outOff, float scale, boolean inverse, Work w) {
        for (int g = 0; g < n2 / W; g++) {
            loadColumns(in, inOff, g, inverse, w.ar, w.ai);
            if (stockham(w.ar, w.ai, w.cr, w.ci, n1, t1r, t1i)) {
                twiddleColumns(w.cr, w.ci, g, w.br, w.bi);
            } else {
                twiddleColumns(w.ar, w.ai, g, w.br, w.bi);
            }
        }
        for (int h = 0; h < n1 / W; h++) {
            gatherRows(w.br, w.bi, h, w.ar, w.ai);
            if (stockham(w.ar, w.ai, w.cr, w.ci, n2, t2r, t2i)) {
                storeRows(w.cr, w.ci, h, out, outOff, scale, inverse);
            } else {
                storeRows(w.ar, w.ai, h, out, outOff, scale, inverse);
            }
        }
    }

    /** Columns {@code gW .. gW+W-1} of the input into work elements {@code 0..N1-1}, split into re and im. */
    private void loadColumns(MemorySegment in, long inOff, int g, boolean swap, float[] ar, float[] ai) {
        FloatVector reLanes = swap ? ComplexLanes.IM : ComplexLanes.RE;
        FloatVector imLanes = swap ? ComplexLanes.RE : ComplexLanes.IM;
        long rowBytes = 8L * n2;
        long at = inOff + 8L * g * W;
        for (int e = 0; e < n1; e++, at += rowBytes) {
            FloatVector v0 = FloatVector.fromMemorySegment(F, in, at, LE);
            FloatVector v1 = FloatVector.fromMemorySegment(F, in, at + 4L * W, LE);
            reLanes.selectFrom(v0, v1).intoArray(ar, e * W);
            imLanes.selectFrom(v0, v1).intoArray(ai, e * W);
        }
    }

    /** {@code b[k1][gW + l] = y[k1] * W_N^{k1 (gW + l)}}. */
    private void twiddleColumns(float[] yr, float[] yi, int g, float[] br, float[] bi) {
        for (int k1 = 0; k1 < n1; k1++) {
            float sr = grpr[k1 * g];
            float si = grpi[k1 * g];
            FloatVector cr = FloatVector.fromArray(F, colr, k1 * W);
            FloatVector ci = FloatVector.fromArray(F, coli, k1 * W);
            FloatVector wr = cr.mul(sr).sub(ci.mul(si));
            FloatVector wi = cr.mul(si).add(ci.mul(sr));
            FloatVector ar = FloatVector.fromArray(F, yr, k1 * W);
            FloatVector ai = FloatVector.fromArray(F, yi, k1 * W);
            int to = k1 * rowStride + g * W;
            ar.mul(wr).sub(ai.mul(wi)).intoArray(br, to);
            ar.mul(wi).add(ai.mul(wr)).intoArray(bi, to);
        }
    }

    /** Rows {@code hW .. hW+W-1} of b into work elements {@code 0..N2-1}. */
    private void gatherRows(float[] br, float[] bi, int h, float[] ar, float[] ai) {
        int base = h * W * rowStride;
        for (int e = 0; e < n2; e++) {
            FloatVector.fromArray(F, br, base + e, rowGather, 0).intoArray(ar, e * W);
            FloatVector.fromArray(F, bi, base + e, rowGather, 0).intoArray(ai, e * W);
        }
    }

    /** Element k2 of rows {@code hW..} is {@code X[hW + l + N1 k2]}: interleave, scale and store W values. */
    private void storeRows(float[] yr, float[] yi, int h, MemorySegment out, long outOff, float scale, boolean swap) {
        long at = outOff + 8L * h * W;
        long rowBytes = 8L * n1;
        for (int k2 = 0; k2 < n2; k2++, at += rowBytes) {
            FloatVector re = FloatVector.fromArray(F, yr, k2 * W).mul(scale);
            FloatVector im = FloatVector.fromArray(F, yi, k2 * W).mul(scale);
            FloatVector first = swap ? im : re;
            FloatVector second = swap ? re : im;
            ComplexLanes.ZIP_LO.selectFrom(first, second).intoMemorySegment(out, at, LE);
            ComplexLanes.ZIP_HI.selectFrom(first, second).intoMemorySegment(out, at + 4L * W, LE);
        }
    }

    /**
     * The DFT over {@code len} work elements of W lanes each in {@code (xr, xi)}, using {@code (yr, yi)} as the
     * other Stockham buffer; true when the result ended in y.
     */
    private static boolean stockham(float[] xr, float[] xi, float[] yr, float[] yi, int len, float[] twr, float[] twi) {
        boolean inY = false;
        int s = 1;
        for (int m = len; m >= 4; m /= 4, s *= 4, inY = !inY) {
            if (inY) {
                radix4(yr, yi, xr, xi, m, s, twr, twi);
            } else {
                radix4(xr, xi, yr, yi, m, s, twr, twi);
            }
        }
        if (len / s == 2) {
            if (inY) {
                radix2(yr, yi, xr, xi, s);
            } else {
                radix2(xr, xi, yr, yi, s);
            }
            inY = !inY;
        }
        return inY;
    }

    /** The last pass when log2(len) is odd: 2-point butterflies, no twiddles. */
    private static void radix2(float[] xr, float[] xi, float[] yr, float[] yi, int s) {
        int sv = s * W;
        for (int j = 0; j < sv; j += W) {
            FloatVector ar = FloatVector.fromArray(F, xr, j);
            FloatVector ai = FloatVector.fromArray(F, xi, j);
            FloatVector br = FloatVector.fromArray(F, xr, j + sv);
            FloatVector bi = FloatVector.fromArray(F, xi, j + sv);
            ar.add(br).intoArray(yr, j);
            ai.add(bi).intoArray(yi, j);
            ar.sub(br).intoArray(yr, j + sv);
            ai.sub(bi).intoArray(yi, j + sv);
        }
    }

    /**
     * One radix-4 Stockham pass over sub-transforms of {@code len} elements at stride s, as
     * {@link ComplexFftD}'s: for p below len/4, the runs of s elements starting at {@code s (p + j len/4)},
     * j &lt; 4, combine into the runs at {@code s (4p + k)}, times {@code W_len^{pk}}, which is
     * {@code W_{len s}^{pks}} in the table.
     */
    private static void radix4(float[] xr, float[] xi, float[] yr, float[] yi, int len, int s, float[] twr,
                               float[] twi) {
        int m = len / 4;
        int sv = s * W;         // floats in a run of s elements
        int quarter = m * sv;   // floats between the four inputs
        for (int p = 0; p < m; p++) {
            int t = p * s;
            // twiddles, with the imaginary parts also negated so each half of a complex product is a mul and an fma
            FloatVector w1r = FloatVector.broadcast(F, twr[t]);
            FloatVector w1i = FloatVector.broadcast(F, twi[t]);
            FloatVector w1n = FloatVector.broadcast(F, -twi[t]);
            FloatVector w2r = FloatVector.broadcast(F, twr[2 * t]);
            FloatVector w2i = FloatVector.broadcast(F, twi[2 * t]);
            FloatVector w2n = FloatVector.broadcast(F, -twi[2 * t]);
            FloatVector w3r = FloatVector.broadcast(F, twr[3 * t]);
            FloatVector w3i = FloatVector.broadcast(F, twi[3 * t]);
            FloatVector w3n = FloatVector.broadcast(F, -twi[3 * t]);
            int src = p * sv;
            int dst = 4 * p * sv;
            for (int j = 0; j < sv; j += W) {
                int a = src + j;
                FloatVector ar = FloatVector.fromArray(F, xr, a);
                FloatVector ai = FloatVector.fromArray(F, xi, a);
                FloatVector br = FloatVector.fromArray(F, xr, a + quarter);
                FloatVector bi = FloatVector.fromArray(F, xi, a + quarter);
                FloatVector cr = FloatVector.fromArray(F, xr, a + 2 * quarter);
                FloatVector ci = FloatVector.fromArray(F, xi, a + 2 * quarter);
                FloatVector dr = FloatVector.fromArray(F, xr, a + 3 * quarter);
                FloatVector di = FloatVector.fromArray(F, xi, a + 3 * quarter);
                FloatVector apcr = ar.add(cr);
                FloatVector apci = ai.add(ci);
                FloatVector amcr = ar.sub(cr);
                FloatVector amci = ai.sub(ci);
                FloatVector bpdr = br.add(dr);
                FloatVector bpdi = bi.add(di);
                FloatVector bmdr = br.sub(dr);
                FloatVector bmdi = bi.sub(di);
                // 4-point DFT: (a+c)+(b+d), (a-c)-i(b-d), (a+c)-(b+d), (a-c)+i(b-d)
                FloatVector x1r = amcr.add(bmdi);
                FloatVector x1i = amci.sub(bmdr);
                FloatVector x2r = apcr.sub(bpdr);
                FloatVector x2i = apci.sub(bpdi);
                FloatVector x3r = amcr.sub(bmdi);
                FloatVector x3i = amci.add(bmdr);
                int d = dst + j;
                apcr.add(bpdr).intoArray(yr, d);
                apci.add(bpdi).intoArray(yi, d);
                // (xr + i xi)(wr + i wi)
                x1r.fma(w1r, x1i.mul(w1n)).intoArray(yr, d + sv);
                x1r.fma(w1i, x1i.mul(w1r)).intoArray(yi, d + sv);
                x2r.fma(w2r, x2i.mul(w2n)).intoArray(yr, d + 2 * sv);
                x2r.fma(w2i, x2i.mul(w2r)).intoArray(yi, d + 2 * sv);
                x3r.fma(w3r, x3i.mul(w3n)).intoArray(yr, d + 3 * sv);
                x3r.fma(w3i, x3i.mul(w3r)).intoArray(yi, d + 3 * sv);
            }
        }
    }
}
