package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.Elements;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import java.lang.foreign.MemorySegment;

/**
 * Max and average pooling ({@link Op.Pool}) over 1 to 3 spatial dims (fewer run as 3-d), any float dtype,
 * computed per output element in double. Window cells outside the input are skipped (ceilMode's extra
 * windows included). AVG divides by the cells inside the input, or with countIncludePad by the cells inside
 * the padded input {@code [-padBegin, in + padEnd)} (as PyTorch; cells past the end padding that only ceilMode
 * reaches never count). The divisor is a product of per-dim counts, so it is tabulated at compile time. A
 * window that touches no input cell (possible only with dilation) gives -inf (MAX) or 0 (AVG).
 * Parallel over output rows.
 *
 * <p>f32 MAX, the pooling of CNNs, runs tap by tap instead: each output row starts at -inf and every (d, h) tap row
 * of the input is folded into it along each w tap's run ({@link TapMap#runStart}: consecutive outputs reading the
 * input at the stride), a plain strided loop with no per-element index lookups (a 2x2/2 pool over 24x72x32 went
 * from 250 to ~40 us). The max of floats is exact and does not depend on the order, so the bits are those of the
 * per-element form. f32 AVG reads its floats directly but keeps the per-element double sum (same order, same bits).
 */
final class PoolKernel implements Kernel, RangeTask {
    /** Window cells visited per parallel work unit, at least. */
    private static final int GRAIN_WORK = 32 * 1024;

    private final MemorySegment x;
    private final MemorySegment y;
    private final DType dtype;
    private final boolean max;
    private final TapMap dMap;
    private final TapMap hMap;
    private final TapMap wMap;
    private final int[] dDiv; // AVG divisor factor per output position of each dim
    private final int[] hDiv;
    private final int[] wDiv;
    private final long xPlaneStride;
    private final int rows; // N * C * outD * outH
    /** When every w tap reads for every output (no padding along w): the input step per output, else 0. */
    private final int wStep;
    /** With {@link #wStep}: each w tap's input offset from output 0's. */
    private final int[] wTap;
    private final int grain;
    private final Parallel parallel;

    private PoolKernel(Node n, LowerContext ctx) {
        Op.Pool p = (Op.Pool) n.op();
        Buf xb = ctx.in(n, 0);
        Buf yb = ctx.out(n, 0);
        this.x = xb.seg();
        this.y = yb.seg();
        this.dtype = xb.dtype();
        this.max = p.op() == Op.Pool.Kind.MAX;
        int[] in = TapMap.spatial(xb.shape());
        int[] out = TapMap.spatial(yb.shape());
        int[] kernel = p.kernel().stream().mapToInt(Integer::intValue).toArray();
        TapMap[] maps = TapMap.threeDims(false, in, out, kernel, p.strides(), p.pads(), p.dilations());
        this.dMap = maps[0];
        this.hMap = maps[1];
        this.wMap = maps[2];
        int[][] div = new int[3][];
        for (int d = 0; d < 3; d++) {
            int j = d - (3 - in.length); // the op's spatial dim, or negative for a padding dim
            TapMap counted = maps[d];
            if (j >= 0 && p.countIncludePad()) {
                // cells of the padded input [-padBegin, in + padEnd) are the cells the same windows cover of an
                // input that includes the padding
                counted = TapMap.forward(in[j] + p.pads().get(j) + p.pads().get(j + in.length), out[j], kernel[j],
                        p.strides().get(j), 0, p.dilations().get(j));
            }
            div[d] = validTaps(counted);
        }
        this.dDiv = div[0];
        this.hDiv = div[1];
        this.wDiv = div[2];
        this.xPlaneStride = (long) dMap.in * hMap.in * wMap.in;
        this.rows = Math.toIntExact(yb.size() / wMap.out);
        this.wTap = new int[wMap.taps];
        boolean full = true;
        for (int kw = 0; kw < wMap.taps; kw++) {
            wTap[kw] = wMap.srcStart(kw);
            full &= wMap.runStart(kw) == 0 && wMap.runLength(kw) == wMap.out && wMap.outStep(kw) == 1
                    && wMap.srcStep(kw) == wMap.srcStep(0);
        }
        this.wStep = full && wMap.out > 1 ? wMap.srcStep(0) : 0;
        this.grain = (int) Math.max(1, GRAIN_WORK / Math.max(1L, (long) wMap.out * dMap.taps * hMap.taps * wMap.taps));
        this.parallel = ctx.parallel();
    }

    static Kernel of(Node n, LowerContext ctx) {
        return ctx.out(n, 0).size() == 0 ? Kernels.NONE : new PoolKernel(n, ctx);
    }

    private static int[] validTaps(TapMap m) {
        int[] c = new int[m.out];
        for (int o = 0; o < m.out; o++) {
            c[o] = m.validTaps(o);
        }
        return c;
    }

    @Override
    public void run() {
        parallel.parallelFor(rows, grain, this);
    }

    @Override
    public void range(int from, int to) {
        if (max && dtype == DType.F32) {
            maxRowsF32(from, to);
            return;
        }
        for (int row = from; row < to; row++) {
            int oh = row % hMap.out;
            int od = (row / hMap.out) % dMap.out;
            long xPlane = (long) (row / hMap.out / dMap.out) * xPlaneStride;
            long yo = (long) row * wMap.out;
            for (int ow = 0; ow < wMap.out; ow++) {
                double v = window(xPlane, od, oh, ow);
                if (!max) {
                    v /= Math.max(1, dDiv[od] * hDiv[oh] * wDiv[ow]);
                }
                Elements.setDouble(y, yo + ow, dtype, v);
            }
        }
    }

    /** Output rows {@code [from, to)} of an f32 MAX pool, folded tap by tap (see the class comment). */
    private void maxRowsF32(int from, int to) {
        int wOut = wMap.out;
        for (int row = from; row < to; row++) {
            int oh = row % hMap.out;
            int od = (row / hMap.out) % dMap.out;
            long xPlane = (long) (row / hMap.out / dMap.out) * xPlaneStride;
            long yo = (long) row * wOut;
            for (int ow = 0; ow < wOut; ow++) {
                y.setAtIndex(JAVA_FLOAT, yo + ow, Float.NEGATIVE_INFINITY);
            }
            for (int kd = 0; kd < dMap.taps; kd++) {
                int id = dMap.src(od, kd);
                if (id < 0) {
                    continue;
                }
                for (int kh = 0; kh < hMap.taps; kh++) {
                    int ih = hMap.src(oh, kh);
                    if (ih < 0) {
                        continue;
                    }
                    long xRow = xPlane + ((long) id * hMap.in + ih) * wMap.in;
                    if (wStep > 0) {
                        maxRow(xRow, yo, wOut);
                        continue;
                    }
                    for (int kw = 0; kw < wMap.taps; kw++) {
                        maxRun(xRow + wMap.srcStart(kw), wMap.srcStep(kw), yo + wMap.runStart(kw), wMap.outStep(kw),
                                wMap.runLength(kw));
                    }
                }
            }
        }
    }

    /** {@code y[yo + ow] = max(itself, x[xRow + ow*wStep + wTap[kw]] over kw)}: every w tap reads for every output. */
    private void maxRow(long xRow, long yo, int wOut) {
        if (wTap.length == 2) { // the 2-wide windows of CNNs: both taps in registers
            long a = xRow + wTap[0];
            long b = xRow + wTap[1];
            for (int ow = 0; ow < wOut; ow++) {
                long o = (long) ow * wStep;
                float m = Math.max(x.getAtIndex(JAVA_FLOAT, a + o), x.getAtIndex(JAVA_FLOAT, b + o));
                y.setAtIndex(JAVA_FLOAT, yo + ow, Math.max(y.getAtIndex(JAVA_FLOAT, yo + ow), m));
            }
            return;
        }
        for (int kw = 0; kw < wTap.length; kw++) {
            maxRun(xRow + wTap[kw], wStep, yo, 1, wOut);
        }
    }

    /** {@code y[yAt + i*yStep] = max(itself, x[xAt + i*xStep])} for {@code i < n}. */
    private void maxRun(long xAt, int xStep, long yAt, int yStep, int n) {
        for (int i = 0; i < n; i++) {
            long yi = yAt + (long) i * yStep;
            y.setAtIndex(JAVA_FLOAT, yi, Math.max(y.getAtIndex(JAVA_FLOAT, yi), x.getAtIndex(JAVA_FLOAT, xAt + (long) i * xStep)));
        }
    }

    /** Max, or sum, of the input cells in the window of output (od, oh, ow). */
    private double window(long xPlane, int od, int oh, int ow) {
        double acc = max ? Double.NEGATIVE_INFINITY : 0;
        for (int kd = 0; kd < dMap.taps; kd++) {
            int id = dMap.src(od, kd);
            if (id < 0) {
                continue;
            }
            for (int kh = 0; kh < hMap.taps; kh++) {
                int ih = hMap.src(oh, kh);
                if (ih < 0) {
                    continue;
                }
                long xRow = xPlane + ((long) id * hMap.in + ih) * wMap.in;
                for (int kw = 0; kw < wMap.taps; kw++) {
                    int iw = wMap.src(ow, kw);
                    if (iw >= 0) {
                        double v = dtype == DType.F32 ? x.getAtIndex(JAVA_FLOAT, xRow + iw)
                                : Elements.getDouble(x, xRow + iw, dtype);
                        acc = max ? Math.max(acc, v) : acc + v;
                    }
                }
            }
        }
        return acc;
    }
}
