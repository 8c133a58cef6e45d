package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.FftKind;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * An f32 or c64 Fft line whose complex transform the vector FFT takes: a power of two ({@link Pow2FftF32}) or
 * another length through f32 Bluestein ({@link BluesteinFftF32}; even ones as two half-length Bluesteins,
 * {@link EvenBluesteinFftF32}). The complex length is n for fft and ifft and
 * for rfft and irfft of odd n (the real line as a full complex one), n/2 for rfft and irfft of even n, which
 * pair up samples and split or merge the half-length spectrum as {@link ScalarFftLine} describes, here in f32
 * on the interleaved line. Contiguous lines go straight from the input to the output slot; strided ones (a transform
 * along a non-last axis) are copied through two per-part scratch lines.
 */
final class VectorFftLine implements FftLine {
    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final FftKind kind;
    private final int n;
    private final float scale;
    private final boolean halfReal;          // even-length real kind through a length-n/2 complex transform
    private final ComplexFftF32[] fft;       // per part, bound to its workspace
    private final MemorySegment[] lineIn;    // per part: (length + 1) contiguous complex values
    private final MemorySegment[] lineOut;
    private final float[] hr;                // W_n^k, k <= n/2, for the real kinds
    private final float[] hi;

    /** Whether a line of this kind and length takes the vector path. */
    static boolean supports(FftKind kind, int n) {
        boolean real = kind == FftKind.R2C || kind == FftKind.C2R;
        return takes(real && n % 2 == 0 ? n / 2 : n);
    }

    private static boolean takes(int len) {
        return Pow2FftF32.supports(len) || BluesteinFftF32.supports(len);
    }

    VectorFftLine(FftKind kind, int n, double scale, int parts, LowerContext ctx) {
        this.kind = kind;
        this.n = n;
        this.scale = (float) scale;
        boolean real = kind == FftKind.R2C || kind == FftKind.C2R;
        this.halfReal = real && n % 2 == 0;
        int len = halfReal ? n / 2 : n;
        Pow2FftF32 pow2 = Pow2FftF32.supports(len) ? new Pow2FftF32(len) : null;
        EvenBluesteinFftF32 even = pow2 == null && EvenBluesteinFftF32.supports(len) ? new EvenBluesteinFftF32(len) : null;
        BluesteinFftF32 bluestein = pow2 == null && even == null ? new BluesteinFftF32(len) : null;
        this.fft = new ComplexFftF32[parts];
        this.lineIn = new MemorySegment[parts];
        this.lineOut = new MemorySegment[parts];
        for (int p = 0; p < parts; p++) {
            if (pow2 != null) {
                Pow2FftF32.Work w = pow2.newWork();
                fft[p] = (in, inOff, out, outOff, s, inverse) -> pow2.transform(in, inOff, out, outOff, s, inverse, w);
            } else if (even != null) {
                fft[p] = even.bind(ctx.scratch(even.scratchBytes()));
            } else {
                fft[p] = bluestein.bind(ctx.scratch(bluestein.scratchBytes()));
            }
            lineIn[p] = ctx.scratch(8L * (len + 1));
            lineOut[p] = ctx.scratch(8L * (len + 1));
        }
        this.hr = new float[halfReal ? n / 2 + 1 : 0];
        this.hi = new float[hr.length];
        Twiddles.fill(hr.length, 1, n, hr, hi);
    }

    @Override
    public void run(MemorySegment x, long xOff, long xStride, MemorySegment y, long yOff, long yStride, int part) {
        int h = n / 2;
        switch (kind) {
            case C2C_FORWARD, C2C_INVERSE -> {
                boolean inDirect = xStride == 2;
                boolean outDirect = yStride == 2;
                if (!inDirect) {
                    copy(x, xOff, xStride, lineIn[part], 0, 2, n, 2);
                }
                fft[part].transform(inDirect ? x : lineIn[part], inDirect ? 4 * xOff : 0,
                        outDirect ? y : lineOut[part], outDirect ? 4 * yOff : 0, scale, kind == FftKind.C2C_INVERSE);
                if (!outDirect) {
                    copy(lineOut[part], 0, 2, y, yOff, yStride, n, 2);
                }
            }
            case R2C -> {
                if (!halfReal) {
                    oddForward(x, xOff, xStride, y, yOff, yStride, part);
                    return;
                }
                boolean inDirect = xStride == 1;
                boolean outDirect = yStride == 2;
                if (!inDirect) {
                    copy(x, xOff, xStride, lineIn[part], 0, 1, n, 1);
                }
                MemorySegment z = outDirect ? y : lineOut[part];
                long zOff = outDirect ? yOff : 0;
                fft[part].transform(inDirect ? x : lineIn[part], inDirect ? 4 * xOff : 0, z, 4 * zOff, 1f, false);
                split(z, zOff);
                if (!outDirect) {
                    copy(z, 0, 2, y, yOff, yStride, h + 1, 2);
                }
            }
            case C2R -> {
                if (!halfReal) {
                    oddInverse(x, xOff, xStride, y, yOff, yStride, part);
                    return;
                }
                boolean outDirect = yStride == 1;
                merge(x, xOff, xStride, lineIn[part]);
                fft[part].transform(lineIn[part], 0, outDirect ? y : lineOut[part], outDirect ? 4 * yOff : 0, scale,
                        true);
                if (!outDirect) {
                    copy(lineOut[part], 0, 1, y, yOff, yStride, n, 1);
                }
            }
        }
    }

    /** rfft of odd n: the real line as n complex values (zero imaginary parts), bins {@code 0..n/2} kept. */
    private void oddForward(MemorySegment x, long xOff, long xStride, MemorySegment y, long yOff, long yStride,
                            int part) {
        MemorySegment in = lineIn[part];
        for (int t = 0; t < n; t++) {
            in.setAtIndex(JAVA_FLOAT, 2L * t, x.getAtIndex(JAVA_FLOAT, xOff + t * xStride));
            in.setAtIndex(JAVA_FLOAT, 2L * t + 1, 0f);
        }
        fft[part].transform(in, 0, lineOut[part], 0, scale, false);
        copy(lineOut[part], 0, 2, y, yOff, yStride, n / 2 + 1, 2);
    }

    /**
     * irfft of odd n: bins {@code 0..n/2} extended to the Hermitian spectrum ({@code X[k] = conj X[n-k]}),
     * inverse transformed as n complex values, the real parts kept.
     */
    private void oddInverse(MemorySegment x, long xOff, long xStride, MemorySegment y, long yOff, long yStride,
                            int part) {
        MemorySegment in = lineIn[part];
        int bins = n / 2 + 1;
        copy(x, xOff, xStride, in, 0, 2, bins, 2);
        for (int k = bins; k < n; k++) {
            in.setAtIndex(JAVA_FLOAT, 2L * k, in.getAtIndex(JAVA_FLOAT, 2L * (n - k)));
            in.setAtIndex(JAVA_FLOAT, 2L * k + 1, -in.getAtIndex(JAVA_FLOAT, 2L * (n - k) + 1));
        }
        fft[part].transform(in, 0, lineOut[part], 0, scale, true);
        copy(lineOut[part], 0, 2, y, yOff, yStride, n, 1);
    }

    /** In place: {@code Z = DFT_h(z)} at float offset {@code off} becomes bins {@code 0..h} of the real spectrum, scaled. */
    private void split(MemorySegment z, long off) {
        int h = n / 2;
        float z0r = z.getAtIndex(JAVA_FLOAT, off);
        float z0i = z.getAtIndex(JAVA_FLOAT, off + 1);
        z.setAtIndex(JAVA_FLOAT, off, scale * (z0r + z0i));
        z.setAtIndex(JAVA_FLOAT, off + 1, 0f);
        z.setAtIndex(JAVA_FLOAT, off + 2L * h, scale * (z0r - z0i));
        z.setAtIndex(JAVA_FLOAT, off + 2L * h + 1, 0f);
        splitScalar(z, off, splitVector(z, off));
    }

    /**
     * Bins k and h-k for {@code k = from..h/2}: with {@code 2E = Z[k] + conj Z[h-k]} and
     * {@code 2O = (Z[k] - conj Z[h-k]) / i}, {@code X[k] = E + W^k O}; bin h-k sees {@code conj E} and
     * {@code -conj O} with {@code W^{h-k} = -conj W^k}.
     */
    private void splitScalar(MemorySegment z, long off, int from) {
        int h = n / 2;
        float half = 0.5f * scale;
        for (int k = from; 2 * k <= h; k++) {
            long a = off + 2L * k;
            long b = off + 2L * (h - k);
            float ar = z.getAtIndex(JAVA_FLOAT, a);
            float ai = z.getAtIndex(JAVA_FLOAT, a + 1);
            float br = z.getAtIndex(JAVA_FLOAT, b);
            float bi = z.getAtIndex(JAVA_FLOAT, b + 1);
            float er = ar + br;
            float ei = ai - bi;
            float or = ai + bi;
            float oi = br - ar;
            float c = hr[k];
            float s = hi[k];
            z.setAtIndex(JAVA_FLOAT, a, half * (er + c * or - s * oi));
            z.setAtIndex(JAVA_FLOAT, a + 1, half * (ei + c * oi + s * or));
            z.setAtIndex(JAVA_FLOAT, b, half * (er - c * or + s * oi));
            z.setAtIndex(JAVA_FLOAT, b + 1, half * (-ei + c * oi + s * or));
        }
    }

    /**
     * {@link #splitScalar} for W bins k.. and W bins ..h-k at once while the two blocks stay apart (the second
     * read and written in reverse lane order); returns the first k left.
     */
    private int splitVector(MemorySegment z, long off) {
        int h = n / 2;
        FloatVector half = FloatVector.broadcast(F, 0.5f * scale);
        int k = 1;
        for (; 2 * k + 2 * W - 1 <= h; k += W) {
            long a = 4 * (off + 2L * k);
            long b = 4 * (off + 2L * (h - k - W + 1));
            FloatVector a0 = FloatVector.fromMemorySegment(F, z, a, LE);
            FloatVector a1 = FloatVector.fromMemorySegment(F, z, a + 4L * W, LE);
            FloatVector b0 = FloatVector.fromMemorySegment(F, z, b, LE);
            FloatVector b1 = FloatVector.fromMemorySegment(F, z, b + 4L * W, LE);
            FloatVector ar = ComplexLanes.RE.selectFrom(a0, a1);
            FloatVector ai = ComplexLanes.IM.selectFrom(a0, a1);
            FloatVector br = ComplexLanes.RE_REVERSED.selectFrom(b0, b1); // lane j: bin h-k-j
            FloatVector bi = ComplexLanes.IM_REVERSED.selectFrom(b0, b1);
            FloatVector c = FloatVector.fromArray(F, hr, k);
            FloatVector s = FloatVector.fromArray(F, hi, k);
            FloatVector er = ar.add(br);
            FloatVector ei = ai.sub(bi);
            FloatVector or = ai.add(bi);
            FloatVector oi = br.sub(ar);
            FloatVector cor = c.mul(or);
            FloatVector coi = c.mul(oi);
            FloatVector sor = s.mul(or);
            FloatVector soi = s.mul(oi);
            FloatVector xr = er.add(cor).sub(soi).mul(half);
            FloatVector xi = ei.add(coi).add(sor).mul(half);
            FloatVector mr = er.sub(cor).add(soi).mul(half);
            FloatVector mi = coi.sub(ei).add(sor).mul(half);
            ComplexLanes.ZIP_LO.selectFrom(xr, xi).intoMemorySegment(z, a, LE);
            ComplexLanes.ZIP_HI.selectFrom(xr, xi).intoMemorySegment(z, a + 4L * W, LE);
            ComplexLanes.ZIP_REVERSED_LO.selectFrom(mr, mi).intoMemorySegment(z, b, LE);
            ComplexLanes.ZIP_REVERSED_HI.selectFrom(mr, mi).intoMemorySegment(z, b + 4L * W, LE);
        }
        return k;
    }

    /**
     * {@code 2Z} (h contiguous values in {@code z}) from bins {@code 0..h} of x, whose imaginary parts at bins 0
     * and h are ignored; see {@link ScalarFftLine}.
     */
    private void merge(MemorySegment x, long off, long stride, MemorySegment z) {
        int h = n / 2;
        float x0 = x.getAtIndex(JAVA_FLOAT, off);
        float xh = x.getAtIndex(JAVA_FLOAT, off + h * stride);
        z.setAtIndex(JAVA_FLOAT, 0, x0 + xh);
        z.setAtIndex(JAVA_FLOAT, 1, x0 - xh);
        mergeScalar(x, off, stride, z, stride == 2 ? mergeVector(x, off, z) : 1);
    }

    /**
     * {@code 2Z[k]} and {@code 2Z[h-k]} for {@code k = from..h/2}: with {@code 2E = X[k] + conj X[h-k]} and
     * {@code 2O = conj(W^k) (X[k] - conj X[h-k])}, {@code 2Z[k] = 2E + 2iO}; at h-k, E and O turn to their
     * conjugates.
     */
    private void mergeScalar(MemorySegment x, long off, long stride, MemorySegment z, int from) {
        int h = n / 2;
        for (int k = from; 2 * k <= h; k++) {
            long a = off + k * stride;
            long b = off + (h - k) * stride;
            float ar = x.getAtIndex(JAVA_FLOAT, a);
            float ai = x.getAtIndex(JAVA_FLOAT, a + 1);
            float br = x.getAtIndex(JAVA_FLOAT, b);
            float bi = x.getAtIndex(JAVA_FLOAT, b + 1);
            float er = ar + br;
            float ei = ai - bi;
            float dr = ar - br;
            float di = ai + bi;
            float or = dr * hr[k] + di * hi[k];
            float oi = di * hr[k] - dr * hi[k];
            z.setAtIndex(JAVA_FLOAT, 2L * (h - k), er + oi);
            z.setAtIndex(JAVA_FLOAT, 2L * (h - k) + 1, or - ei);
            z.setAtIndex(JAVA_FLOAT, 2L * k, er - oi);
            z.setAtIndex(JAVA_FLOAT, 2L * k + 1, ei + or);
        }
    }

    /** {@link #mergeScalar} for contiguous bins, W pairs of blocks at a time; returns the first k left. */
    private int mergeVector(MemorySegment x, long off, MemorySegment z) {
        int h = n / 2;
        int k = 1;
        for (; 2 * k + 2 * W - 1 <= h; k += W) {
            long a = 4 * (off + 2L * k);
            long b = 4 * (off + 2L * (h - k - W + 1));
            FloatVector a0 = FloatVector.fromMemorySegment(F, x, a, LE);
            FloatVector a1 = FloatVector.fromMemorySegment(F, x, a + 4L * W, LE);
            FloatVector b0 = FloatVector.fromMemorySegment(F, x, b, LE);
            FloatVector b1 = FloatVector.fromMemorySegment(F, x, b + 4L * W, LE);
            FloatVector ar = ComplexLanes.RE.selectFrom(a0, a1);
            FloatVector ai = ComplexLanes.IM.selectFrom(a0, a1);
            FloatVector br = ComplexLanes.RE_REVERSED.selectFrom(b0, b1); // lane j: bin h-k-j
            FloatVector bi = ComplexLanes.IM_REVERSED.selectFrom(b0, b1);
            FloatVector c = FloatVector.fromArray(F, hr, k);
            FloatVector s = FloatVector.fromArray(F, hi, k);
            FloatVector er = ar.add(br);
            FloatVector ei = ai.sub(bi);
            FloatVector dr = ar.sub(br);
            FloatVector di = ai.add(bi);
            FloatVector or = dr.mul(c).add(di.mul(s));
            FloatVector oi = di.mul(c).sub(dr.mul(s));
            FloatVector kr = er.sub(oi);
            FloatVector ki = ei.add(or);
            FloatVector mr = er.add(oi);
            FloatVector mi = or.sub(ei);
            long za = 8L * k;
            long zb = 8L * (h - k - W + 1);
            ComplexLanes.ZIP_LO.selectFrom(kr, ki).intoMemorySegment(z, za, LE);
            ComplexLanes.ZIP_HI.selectFrom(kr, ki).intoMemorySegment(z, za + 4L * W, LE);
            ComplexLanes.ZIP_REVERSED_LO.selectFrom(mr, mi).intoMemorySegment(z, zb, LE);
            ComplexLanes.ZIP_REVERSED_HI.selectFrom(mr, mi).intoMemorySegment(z, zb + 4L * W, LE);
        }
        return k;
    }

    /** Copies {@code count} elements of {@code width} floats between strided float positions. */
    private static void copy(MemorySegment src, long srcOff, long srcStride, MemorySegment dst, long dstOff,
                             long dstStride, int count, int width) {
        for (int k = 0; k < count; k++) {
            for (int c = 0; c < width; c++) {
                dst.setAtIndex(JAVA_FLOAT, dstOff + k * dstStride + c, src.getAtIndex(JAVA_FLOAT, srcOff + k * srcStride + c));
            }
        }
    }
}
