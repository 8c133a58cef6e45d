package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.FftKind;
import java.lang.foreign.MemorySegment;

/**
 * An f32 or c64 Fft line whose complex transform has a power-of-two length the vector FFT takes
 * ({@link Pow2FftF32#supports}): n for fft and ifft, n/2 for rfft and irfft of even n, which pair up samples
 * and split or merge the half-length spectrum as {@link ScalarFftLine} describes, here in f32 on the
 * interleaved line. Contiguous lines go straight from the input to the output slot; strided ones (a transform
 * along a non-last axis) are copied through two per-part scratch lines.
 */
final class VectorFftLine implements FftLine {
    private final FftKind kind;
    private final int n;
    private final float scale;
    private final Pow2FftF32 fft;
    private final Pow2FftF32.Work[] work;    // per part
    private final MemorySegment[] lineIn;    // per part: (length + 1) contiguous complex values
    private final MemorySegment[] lineOut;
    private final float[] hr;                // W_n^k, k <= n/2, for the real kinds
    private final float[] hi;

    /** Whether a line of this kind and length takes the vector path. */
    static boolean supports(FftKind kind, int n) {
        boolean real = kind == FftKind.R2C || kind == FftKind.C2R;
        return real ? n % 2 == 0 && Pow2FftF32.supports(n / 2) : Pow2FftF32.supports(n);
    }

    VectorFftLine(FftKind kind, int n, double scale, int parts, LowerContext ctx) {
        this.kind = kind;
        this.n = n;
        this.scale = (float) scale;
        boolean real = kind == FftKind.R2C || kind == FftKind.C2R;
        this.fft = new Pow2FftF32(real ? n / 2 : n);
        this.work = new Pow2FftF32.Work[parts];
        this.lineIn = new MemorySegment[parts];
        this.lineOut = new MemorySegment[parts];
        for (int p = 0; p < parts; p++) {
            work[p] = fft.newWork();
            lineIn[p] = ctx.scratch(8L * (fft.length() + 1));
            lineOut[p] = ctx.scratch(8L * (fft.length() + 1));
        }
        this.hr = new float[real ? n / 2 + 1 : 0];
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
                fft.transform(inDirect ? x : lineIn[part], inDirect ? 4 * xOff : 0, outDirect ? y : lineOut[part],
                        outDirect ? 4 * yOff : 0, scale, kind == FftKind.C2C_INVERSE, work[part]);
                if (!outDirect) {
                    copy(lineOut[part], 0, 2, y, yOff, yStride, n, 2);
                }
            }
            case R2C -> {
                boolean inDirect = xStride == 1;
                boolean outDirect = yStride == 2;
                if (!inDirect) {
                    copy(x, xOff, xStride, lineIn[part], 0, 1, n, 1);
                }
                MemorySegment z = outDirect ? y : lineOut[part];
                long zOff = outDirect ? yOff : 0;
                fft.transform(inDirect ? x : lineIn[part], inDirect ? 4 * xOff : 0, z, 4 * zOff, 1f, false, work[part]);
                split(z, zOff);
                if (!outDirect) {
                    copy(z, 0, 2, y, yOff, yStride, h + 1, 2);
                }
            }
            case C2R -> {
                boolean outDirect = yStride == 1;
                merge(x, xOff, xStride, lineIn[part]);
                fft.transform(lineIn[part], 0, outDirect ? y : lineOut[part], outDirect ? 4 * yOff : 0, scale, true,
                        work[part]);
                if (!outDirect) {
                    copy(lineOut[part], 0, 1, y, yOff, yStride, n, 1);
                }
            }
        }
    }

    /** In place: {@code Z = DFT_h(z)} at float offset {@code off} becomes bins {@code 0..h} of the real spectrum, scaled. */
    private void split(MemorySegment z, long off) {
        int h = n / 2;
        float half = 0.5f * scale;
        float z0r = z.getAtIndex(JAVA_FLOAT, off);
        float z0i = z.getAtIndex(JAVA_FLOAT, off + 1);
        z.setAtIndex(JAVA_FLOAT, off, scale * (z0r + z0i));
        z.setAtIndex(JAVA_FLOAT, off + 1, 0f);
        z.setAtIndex(JAVA_FLOAT, off + 2L * h, scale * (z0r - z0i));
        z.setAtIndex(JAVA_FLOAT, off + 2L * h + 1, 0f);
        for (int k = 1; 2 * k <= h; k++) { // bins k and h-k from Z[k] and Z[h-k]
            long a = off + 2L * k;
            long b = off + 2L * (h - k);
            float ar = z.getAtIndex(JAVA_FLOAT, a);
            float ai = z.getAtIndex(JAVA_FLOAT, a + 1);
            float br = z.getAtIndex(JAVA_FLOAT, b);
            float bi = z.getAtIndex(JAVA_FLOAT, b + 1);
            // 2E = Z[k] + conj Z[h-k], 2O = (Z[k] - conj Z[h-k]) / i; bin h-k sees conj E and -conj O
            float er = ar + br;
            float ei = ai - bi;
            float or = ai + bi;
            float oi = br - ar;
            z.setAtIndex(JAVA_FLOAT, a, half * (er + hr[k] * or - hi[k] * oi));
            z.setAtIndex(JAVA_FLOAT, a + 1, half * (ei + hr[k] * oi + hi[k] * or));
            z.setAtIndex(JAVA_FLOAT, b, half * (er + hr[h - k] * or + hi[h - k] * oi));
            z.setAtIndex(JAVA_FLOAT, b + 1, half * (-ei - hr[h - k] * oi + hi[h - k] * or));
        }
    }

    /** {@code 2Z} (h contiguous values in {@code z}) from bins {@code 0..h} of x; see {@link ScalarFftLine}. */
    private void merge(MemorySegment x, long off, long stride, MemorySegment z) {
        int h = n / 2;
        float x0 = x.getAtIndex(JAVA_FLOAT, off);
        float xh = x.getAtIndex(JAVA_FLOAT, off + h * stride);
        z.setAtIndex(JAVA_FLOAT, 0, x0 + xh);
        z.setAtIndex(JAVA_FLOAT, 1, x0 - xh);
        for (int k = 1; k < h; k++) {
            long a = off + k * stride;
            long b = off + (h - k) * stride;
            float ar = x.getAtIndex(JAVA_FLOAT, a);
            float ai = x.getAtIndex(JAVA_FLOAT, a + 1);
            float br = x.getAtIndex(JAVA_FLOAT, b);
            float bi = x.getAtIndex(JAVA_FLOAT, b + 1);
            float dr = ar - br;
            float di = ai + bi;
            float or = dr * hr[k] + di * hi[k];
            float oi = di * hr[k] - dr * hi[k];
            z.setAtIndex(JAVA_FLOAT, 2L * k, ar + br - oi);
            z.setAtIndex(JAVA_FLOAT, 2L * k + 1, ai - bi + or);
        }
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
