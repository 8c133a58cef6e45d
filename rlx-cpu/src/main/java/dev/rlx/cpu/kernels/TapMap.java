package dev.rlx.cpu.kernels;

import dev.rlx.ir.Shape;
import dev.rlx.ir.ShapeException;
import dev.rlx.ir.limits.Limits;
import java.util.List;

/**
 * For one spatial dim of a convolution, transposed convolution or pooling window: the input position that
 * each (output position, kernel tap) reads, or -1 where it reads nothing (padding, and for a transposed conv
 * also the positions between strides). Built once at compile time, so kernels look positions up instead of
 * redoing the index arithmetic, and one loop nest serves both conv directions. Ops with fewer than 3 spatial
 * dims run as 3-d ones whose leading dims have a {@link #unit()} map.
 *
 * <p>The outputs one tap reads for form an arithmetic run: output {@code runStart + i*outStep} reads input
 * {@code srcStart + i*srcStep} for {@code i < runLength}. A forward conv's runs have outStep 1 and
 * srcStep = stride (contiguous output, strided input); a transposed conv's the other way round.
 */
final class TapMap {
    final int in;
    final int out;
    final int taps;
    private final int[] src; // (out, taps)
    private final int[] runStart; // per tap
    private final int[] runLength;
    private final int[] outStep;
    private final int[] srcStart;
    private final int[] srcStep;

    private TapMap(int in, int out, int taps, int[] src) {
        this.in = in;
        this.out = out;
        this.taps = taps;
        this.src = src;
        this.runStart = new int[taps];
        this.runLength = new int[taps];
        this.outStep = new int[taps];
        this.srcStart = new int[taps];
        this.srcStep = new int[taps];
        for (int t = 0; t < taps; t++) {
            findRun(t);
        }
    }

    /** Conv and pooling: output o, tap t reads {@code o*stride - padBegin + t*dilation} when inside the input. */
    static TapMap forward(int in, int out, int kernel, int stride, int padBegin, int dilation) {
        return forward(in, out, kernel, stride, padBegin, dilation, Limits.defaults());
    }

    static TapMap forward(int in, int out, int kernel, int stride, int padBegin, int dilation, Limits limits) {
        int[] src = table(out, kernel, "a convolution or pooling window", limits);
        for (int o = 0; o < out; o++) {
            for (int t = 0; t < kernel; t++) {
                long i = (long) o * stride - padBegin + (long) t * dilation; // long: no wrap into the input
                src[o * kernel + t] = i >= 0 && i < in ? (int) i : -1;
            }
        }
        return new TapMap(in, out, kernel, src);
    }

    /**
     * The (out, taps) table, checked before it is allocated: its bytes against {@link Limits.Kind#TENSOR_BYTES}
     * and its length against a Java array's (a ConvTranspose kernel of 40,000 asked for 6.4 GB, one of 65,536
     * overflowed an int).
     */
    private static int[] table(int out, int kernel, String op, Limits limits) {
        long n = (long) out * kernel;
        limits.check(Limits.Kind.TENSOR_BYTES, "the tap map of " + op + " (" + out + " outputs x " + kernel
                + " taps)", Math.multiplyExact(n, 4L));
        if (n > Integer.MAX_VALUE - 8) {
            throw new ShapeException("[conv] the tap map of " + op + " (" + out + " outputs x " + kernel
                    + " taps) has more than 2^31 entries");
        }
        return new int[(int) n];
    }

    /**
     * Transposed conv, the adjoint of {@link #forward}: output o, tap t reads the input i with
     * {@code i*stride - padBegin + t*dilation == o}, if there is one inside the input.
     */
    static TapMap transposed(int in, int out, int kernel, int stride, int padBegin, int dilation) {
        return transposed(in, out, kernel, stride, padBegin, dilation, Limits.defaults());
    }

    static TapMap transposed(int in, int out, int kernel, int stride, int padBegin, int dilation, Limits limits) {
        int[] src = table(out, kernel, "a transposed convolution", limits);
        for (int o = 0; o < out; o++) {
            for (int t = 0; t < kernel; t++) {
                long num = (long) o + padBegin - (long) t * dilation;
                long i = num / stride;
                src[o * kernel + t] = num >= 0 && num % stride == 0 && i < in ? (int) i : -1;
            }
        }
        return new TapMap(in, out, kernel, src);
    }

    /** A dim of size 1 with one tap reading position 0: stands in for spatial dims an op does not have. */
    static TapMap unit() {
        return new TapMap(1, 1, 1, new int[] {0});
    }

    /**
     * The maps of the (d, h, w) dims of an op with {@code in.length} (1 to 3) spatial dims; missing leading
     * dims get {@link #unit()}. {@code pads} holds begins then ends, as the ops do.
     */
    static TapMap[] threeDims(boolean transposed, int[] in, int[] out, int[] kernel, List<Integer> strides,
                              List<Integer> pads, List<Integer> dilations) {
        int missing = 3 - in.length;
        TapMap[] maps = new TapMap[3];
        for (int d = 0; d < 3; d++) {
            int j = d - missing;
            if (j < 0) {
                maps[d] = unit();
            } else if (transposed) {
                maps[d] = transposed(in[j], out[j], kernel[j], strides.get(j), pads.get(j), dilations.get(j));
            } else {
                maps[d] = forward(in[j], out[j], kernel[j], strides.get(j), pads.get(j), dilations.get(j));
            }
        }
        return maps;
    }

    /** The spatial dims of an {@code [N, C, *spatial]} shape. */
    static int[] spatial(Shape s) {
        int[] d = new int[s.rank() - 2];
        for (int i = 0; i < d.length; i++) {
            d[i] = s.dim(i + 2);
        }
        return d;
    }

    /** The input position output {@code o}, tap {@code t} reads, or -1. */
    int src(int o, int t) {
        return src[o * taps + t];
    }

    /** How many taps of output {@code o} read an input position. */
    int validTaps(int o) {
        int n = 0;
        for (int t = 0; t < taps; t++) {
            n += src(o, t) >= 0 ? 1 : 0;
        }
        return n;
    }

    int runStart(int t) { return runStart[t]; }

    int runLength(int t) { return runLength[t]; }

    int outStep(int t) { return outStep[t]; }

    int srcStart(int t) { return srcStart[t]; }

    int srcStep(int t) { return srcStep[t]; }

    /** Records tap t's run, checking that its outputs and inputs really step evenly. */
    private void findRun(int t) {
        int count = 0;
        int prevO = -1;
        for (int o = 0; o < out; o++) {
            int i = src(o, t);
            if (i < 0) {
                continue;
            }
            if (count == 0) {
                runStart[t] = o;
                srcStart[t] = i;
                outStep[t] = 1;
                srcStep[t] = 1;
            } else if (count == 1) {
                outStep[t] = o - runStart[t];
                srcStep[t] = i - srcStart[t];
            } else if (o - prevO != outStep[t] || i != srcStart[t] + count * srcStep[t]) {
                throw new IllegalStateException("tap " + t + " does not read an evenly strided run");
            }
            prevO = o;
            count++;
        }
        runLength[t] = count;
    }
}
