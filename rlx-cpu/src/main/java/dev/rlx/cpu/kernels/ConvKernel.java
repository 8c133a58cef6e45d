package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.CompileException;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Convolution and transposed convolution ({@link Op.Conv}, {@link Op.ConvTranspose}, ONNX semantics) as a
 * direct loop (f32 1-d/2-d depthwise and few-channel ones go to {@link ConvDirectF32}, wide ones to {@link ConvGemmF32}): each output row {@code y[n, oc, od, oh, :]} starts as the bias and, for every input channel of
 * its group and every (kd, kh) tap whose input row exists, adds each kw tap's weight times the strided run
 * of that input row it reads (see {@link TapMap}). The two ops differ only in their tap maps and weight
 * layout. Runs are contiguous on both sides for stride 1 and then use the Vector API (f32). 1 to 3 spatial
 * dims (fewer run as 3-d); f32 and f64, accumulating in the output row. Parallel over output rows, which
 * no two threads share.
 */
final class ConvKernel implements Kernel, RangeTask {
    /** Multiply-adds per parallel work unit, at least. */
    private static final int GRAIN_WORK = 32 * 1024;

    private final MemorySegment x;
    private final MemorySegment w;
    private final MemorySegment bias; // null when there is none
    private final MemorySegment y;
    private final boolean f32;
    private final TapMap dMap;
    private final TapMap hMap;
    private final TapMap wMap;
    private final int cout;
    private final int coutPerGroup;
    private final int cinPerGroup;
    private final long xChannelStride; // elements per input channel plane
    private final long xBatchStride;
    // Weight element offset of (group g, out channel ocg within it, in channel icg within it, tap) is
    // g*wGroupStride + ocg*wOutStride + icg*wInStride + tap, for both weight layouts.
    private final long wGroupStride;
    private final long wOutStride;
    private final long wInStride;
    private final int rows; // N * Cout * outD * outH
    private final int grain;
    private final Parallel parallel;

    private ConvKernel(Node n, LowerContext ctx, boolean transposed, List<Integer> strides, List<Integer> pads,
                       List<Integer> dilations, int groups) {
        Buf xb = ctx.in(n, 0);
        Buf wb = ctx.in(n, 1);
        Buf yb = ctx.out(n, 0);
        Shape xs = xb.shape();
        Shape ws = wb.shape();
        Shape ys = yb.shape();
        this.x = xb.seg();
        this.w = wb.seg();
        this.bias = n.inputs().size() == 3 ? ctx.in(n, 2).seg() : null;
        this.y = yb.seg();
        this.f32 = xb.dtype() == DType.F32;
        TapMap[] maps = TapMap.threeDims(transposed, TapMap.spatial(xs), TapMap.spatial(ys), TapMap.spatial(ws), strides, pads, dilations);
        this.dMap = maps[0];
        this.hMap = maps[1];
        this.wMap = maps[2];
        int cin = xs.dim(1);
        this.cout = ys.dim(1);
        this.coutPerGroup = cout / groups;
        this.cinPerGroup = cin / groups;
        this.xChannelStride = (long) dMap.in * hMap.in * wMap.in;
        this.xBatchStride = cin * xChannelStride;
        long taps = (long) dMap.taps * hMap.taps * wMap.taps;
        this.wGroupStride = (long) coutPerGroup * cinPerGroup * taps;
        this.wOutStride = transposed ? taps : cinPerGroup * taps; // w [Cin, Cout/g, k...] vs [Cout, Cin/g, k...]
        this.wInStride = transposed ? coutPerGroup * taps : taps;
        this.rows = Math.toIntExact((long) ys.dim(0) * cout * dMap.out * hMap.out);
        long rowWork = Math.max(1, cinPerGroup * taps * wMap.out);
        this.grain = (int) Math.max(1, GRAIN_WORK / rowWork);
        this.parallel = ctx.parallel();
    }

    static Kernel conv(Node n, LowerContext ctx) {
        Op.Conv c = (Op.Conv) n.op();
        return build(n, ctx, false, c.strides(), c.pads(), c.dilations(), c.groups());
    }

    static Kernel convTranspose(Node n, LowerContext ctx) {
        Op.ConvTranspose c = (Op.ConvTranspose) n.op();
        return build(n, ctx, true, c.strides(), c.pads(), c.dilations(), c.groups());
    }

    private static Kernel build(Node n, LowerContext ctx, boolean transposed, List<Integer> strides,
                                List<Integer> pads, List<Integer> dilations, int groups) {
        DType t = ctx.in(n, 0).dtype();
        if (t != DType.F32 && t != DType.F64) {
            // accumulating in a 16-bit output row would round every step: cast to f32 around the op instead
            throw new CompileException("cpu: " + n.describe() + " has no cpu kernel for " + t + " (f32 and f64 only)");
        }
        if (ctx.out(n, 0).size() == 0) {
            return Kernels.NONE;
        }
        if (!transposed && ConvDirectF32.applies(n, ctx)) {
            return new ConvDirectF32(n, ctx);
        }
        if (!transposed && ConvGemmF32.applies(n, ctx)) {
            return new ConvGemmF32(n, ctx);
        }
        if (transposed && ConvTransposeGemmF32.applies(n, ctx)) {
            return new ConvTransposeGemmF32(n, ctx);
        }
        return new ConvKernel(n, ctx, transposed, strides, pads, dilations, groups);
    }

    @Override
    public void run() {
        parallel.parallelFor(rows, grain, this);
    }

    @Override
    public void range(int from, int to) {
        for (int row = from; row < to; row++) {
            outputRow(row);
        }
    }

    private void outputRow(int row) {
        int oh = row % hMap.out;
        int od = (row / hMap.out) % dMap.out;
        int plane = row / hMap.out / dMap.out;
        int oc = plane % cout;
        int n = plane / cout;
        int g = oc / coutPerGroup;
        long yo = (long) row * wMap.out;
        fill(yo, bias == null ? 0 : bias(oc));
        long wOut = g * wGroupStride + (oc % coutPerGroup) * wOutStride;
        for (int icg = 0; icg < cinPerGroup; icg++) {
            long xPlane = n * xBatchStride + (long) (g * cinPerGroup + icg) * xChannelStride;
            long wIn = wOut + icg * wInStride;
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
                    long wTap = wIn + ((long) kd * hMap.taps + kh) * wMap.taps;
                    addTapRuns(xRow, wTap, yo);
                }
            }
        }
    }

    /** Adds, for each kw tap, its weight times the input run it reads into the output row. */
    private void addTapRuns(long xRow, long wTap, long yo) {
        for (int kw = 0; kw < wMap.taps; kw++) {
            int len = wMap.runLength(kw);
            if (len == 0) {
                continue;
            }
            long xo = xRow + wMap.srcStart(kw);
            long xs = wMap.srcStep(kw);
            long ro = yo + wMap.runStart(kw);
            long ys = wMap.outStep(kw);
            if (f32) {
                FloatRows.axpy(w.getAtIndex(JAVA_FLOAT, wTap + kw), x, xo, xs, y, ro, ys, len);
            } else {
                axpyF64(w.getAtIndex(JAVA_DOUBLE, wTap + kw), xo, xs, ro, ys, len);
            }
        }
    }

    /** {@code y[yo + i*ys] += a * x[xo + i*xs]}, the f64 twin of {@link FloatRows#axpy}. */
    private void axpyF64(double a, long xo, long xs, long yo, long ys, int n) {
        for (int i = 0; i < n; i++) {
            long yi = yo + i * ys;
            y.setAtIndex(JAVA_DOUBLE, yi, y.getAtIndex(JAVA_DOUBLE, yi) + a * x.getAtIndex(JAVA_DOUBLE, xo + i * xs));
        }
    }

    private double bias(int oc) {
        return f32 ? bias.getAtIndex(JAVA_FLOAT, oc) : bias.getAtIndex(JAVA_DOUBLE, oc);
    }

    private void fill(long yo, double v) {
        if (f32) {
            FloatRows.fill(y, yo, (float) v, wMap.out);
        } else {
            for (int i = 0; i < wMap.out; i++) {
                y.setAtIndex(JAVA_DOUBLE, yo + i, v);
            }
        }
    }
}
