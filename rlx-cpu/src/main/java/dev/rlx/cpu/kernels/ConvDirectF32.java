package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * f32 convolution ({@link Op.Conv}) with 1 or 2 spatial dims as a direct Vector API loop over padded, stride-split
 * copies of the input planes: the depthwise convs and the few-channel ones (the first conv of an image model, on 3
 * input channels) that im2col + GEMM serves badly (the column matrix of a stride-2 3-channel conv is filled element
 * by element and is as large as the work; a depthwise conv's GEMM is one row deep).
 *
 * <p>Why it needs no gathers: each input plane of the group is copied once per unit into {@code sh * sw} phase
 * planes, phase {@code (a, b)} holding the zero-padded input at rows {@code r*sh + a} and columns {@code j*sw + b},
 * all {@code R x P} with the row pitch {@code P = outW + ((kw-1)*dw)/sw}. Tap (kh, kw) at output (oh, ow) then
 * reads phase {@code (kh*dh % sh, kw*dw % sw)} at {@code (oh + kh*dh/sh) * P + ow + kw*dw/sw}: for every tap, the
 * output positions {@code q = oh*P + ow} read a contiguous run at a fixed offset. The output is computed over all
 * {@code q < outH*P} (the {@code P - outW} columns past each row's end are discarded), four output channels by
 * two vectors of positions at a time (one channel by four vectors for depthwise convs) with the weights
 * broadcast once per tap, so the accumulators stay in registers over all
 * {@code Cin/g * kh * kw} taps (starting from the bias); the finished row of positions is then copied out.
 *
 * <p>Units are (image, group, block of output channels), taken by the threads as they finish; a part re-copies
 * the planes only when its unit's (image, group) changes.
 */
final class ConvDirectF32 implements Kernel, RangeTask {
    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int VL = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Floats of phase planes per part, at most: beyond it the loop of {@link ConvKernel} runs instead. */
    static final long MAX_PLANE_FLOATS = 4L << 20;

    private final MemorySegment x;
    private final MemorySegment w;
    private final MemorySegment bias; // null when there is none
    private final MemorySegment y;
    private final Dim hd;
    private final Dim wd;
    private final int groups;
    private final int cout;
    private final int coutPerGroup;
    private final int cinPerGroup;
    private final int k;             // taps per output channel: Cin/g * kh * kw
    private final long[] tapOffset;  // per tap k: its phase plane's start plus its row and column shift
    private final int phases;        // sh * sw
    private final long planeFloats;  // R * P
    private final int pitch;         // P
    private final int rowsOut;       // outH
    private final int positions;     // outH * P, computed
    private final int paddedPositions; // rounded up to whole vectors
    private final int ocBlock;       // output channels per unit
    private final int blocks;        // per group
    private final int units;
    private final int parts;
    private final long xChannelStride;
    private final long yChannelStride;
    private final MemorySegment[] planes; // per part
    private final MemorySegment[] rows;   // per part: paddedPositions for each of up to four output channels
    private final WorkCursor cursor = new WorkCursor();
    private final Parallel parallel;

    /** One spatial dim: sizes, stride, leading pad, dilation, and the phase-plane extent {@code out + maxShift}. */
    private record Dim(int in, int out, int kernel, int stride, int pad, int dilation) {
        int extent() {
            return out + ((kernel - 1) * dilation) / stride;
        }

        /** Tap t of output o reads index {@code o + shift(t)} of phase plane {@code phase(t)}. */
        int shift(int t) {
            return t * dilation / stride;
        }

        int phase(int t) {
            return t * dilation % stride;
        }

        /** The input position held at phase-plane index {@code j} of phase {@code p}, or -1 (padding). */
        int source(int j, int p) {
            long i = (long) j * stride + p - pad;
            return i >= 0 && i < in ? (int) i : -1;
        }
    }

    /**
     * Whether this loop takes the conv: f32, 1 or 2 spatial dims, planes within {@link #MAX_PLANE_FLOATS}, and
     * either not a GEMM shape ({@link ConvGemmF32#applies}) or one on at most 4 input channels per group.
     */
    static boolean applies(Node n, LowerContext ctx) {
        if (!(n.op() instanceof Op.Conv c) || ctx.in(n, 0).dtype() != DType.F32) {
            return false;
        }
        Shape xs = ctx.in(n, 0).shape();
        Shape ws = ctx.in(n, 1).shape();
        if (xs.rank() != 3 && xs.rank() != 4) {
            return false;
        }
        Dim[] d = dims(c, xs, ws, ctx.out(n, 0).shape());
        long plane = (long) d[0].extent() * d[1].extent();
        long floats = (long) ws.dim(1) * d[0].stride * d[1].stride * plane;
        if (floats > MAX_PLANE_FLOATS) {
            return false;
        }
        return !ConvGemmF32.applies(n, ctx) || ws.dim(1) <= 4;
    }

    private static Dim[] dims(Op.Conv c, Shape xs, Shape ws, Shape ys) {
        if (xs.rank() == 3) {
            return new Dim[] {new Dim(1, 1, 1, 1, 0, 1),
                    new Dim(xs.dim(2), ys.dim(2), ws.dim(2), c.strides().get(0), c.pads().get(0), c.dilations().get(0))};
        }
        return new Dim[] {
                new Dim(xs.dim(2), ys.dim(2), ws.dim(2), c.strides().get(0), c.pads().get(0), c.dilations().get(0)),
                new Dim(xs.dim(3), ys.dim(3), ws.dim(3), c.strides().get(1), c.pads().get(1), c.dilations().get(1))};
    }

    ConvDirectF32(Node n, LowerContext ctx) {
        Op.Conv c = (Op.Conv) n.op();
        Buf xb = ctx.in(n, 0);
        Buf wb = ctx.in(n, 1);
        Buf yb = ctx.out(n, 0);
        this.x = xb.seg();
        this.w = wb.seg();
        this.bias = n.inputs().size() == 3 ? ctx.in(n, 2).seg() : null;
        this.y = yb.seg();
        Dim[] d = dims(c, xb.shape(), wb.shape(), yb.shape());
        this.hd = d[0];
        this.wd = d[1];
        this.groups = c.groups();
        this.cout = yb.shape().dim(1);
        this.coutPerGroup = cout / groups;
        this.cinPerGroup = xb.shape().dim(1) / groups;
        this.phases = hd.stride * wd.stride;
        this.pitch = wd.extent();
        this.planeFloats = (long) hd.extent() * pitch;
        this.rowsOut = hd.out;
        this.positions = hd.out * pitch;
        this.paddedPositions = (positions + VL - 1) / VL * VL;
        int taps = hd.kernel * wd.kernel;
        this.k = cinPerGroup * taps;
        this.tapOffset = new long[k];
        for (int ic = 0; ic < cinPerGroup; ic++) {
            for (int th = 0; th < hd.kernel; th++) {
                for (int tw = 0; tw < wd.kernel; tw++) {
                    int phase = hd.phase(th) * wd.stride + wd.phase(tw);
                    tapOffset[ic * taps + th * wd.kernel + tw] = ((long) ic * phases + phase) * planeFloats
                            + (long) hd.shift(th) * pitch + wd.shift(tw);
                }
            }
        }
        int images = xb.shape().dim(0);
        int threads = ctx.parallel().threads();
        long work = (long) images * cout * k * positions;
        int imageGroups = images * groups;
        // enough units to share: split a group's output channels when there are few (image, group) pairs
        int split = threads == 1 || work < (1L << 18) || imageGroups >= 4 * threads ? 1
                : Math.min(coutPerGroup, (4 * threads + imageGroups - 1) / imageGroups);
        int block = (coutPerGroup + split - 1) / split;
        this.ocBlock = coutPerGroup >= 4 ? Math.min(coutPerGroup, (block + 3) / 4 * 4) : block; // whole fours
        this.blocks = (coutPerGroup + ocBlock - 1) / ocBlock;
        this.units = imageGroups * blocks;
        this.parts = Math.max(1, Math.min(work < (1L << 18) ? 1 : threads, units));
        this.xChannelStride = (long) hd.in * wd.in;
        this.yChannelStride = (long) hd.out * wd.out;
        // the last tap's run may read past its plane, into the next or this slack (never written, so zero)
        long slack = paddedPositions - positions + pitch + VL;
        this.planes = new MemorySegment[parts];
        this.rows = new MemorySegment[parts];
        for (int p = 0; p < parts; p++) {
            planes[p] = ctx.workspace(4L * (cinPerGroup * phases * planeFloats + slack));
            rows[p] = ctx.workspace(4L * (coutPerGroup >= 4 ? 4 : 1) * paddedPositions);
        }
        this.parallel = ctx.parallel();
    }

    @Override
    public void run() {
        cursor.reset(units, parts);
        parallel.parallelFor(parts, 1, this);
    }

    @Override
    public void range(int from, int to) {
        for (int part = from; part < to; part++) {
            long copied = -1; // (image, group) whose planes the part holds: none yet in this run
            for (int begin = cursor.take(); begin >= 0; begin = cursor.take()) {
                for (int u = begin, end = cursor.end(begin); u < end; u++) {
                    int imageGroup = u / blocks;
                    if (imageGroup != copied) {
                        copyPlanes(imageGroup, planes[part]);
                        copied = imageGroup;
                    }
                    int g = imageGroup % groups;
                    int image = imageGroup / groups;
                    int oc0 = (u % blocks) * ocBlock;
                    int oc1 = Math.min(coutPerGroup, oc0 + ocBlock);
                    int ocg = oc0;
                    for (; ocg + 4 <= oc1; ocg += 4) {
                        int oc = g * coutPerGroup + ocg;
                        fourOutputChannels(planes[part], rows[part], oc);
                        for (int j = 0; j < 4; j++) {
                            writeOut(rows[part], (long) j * paddedPositions, (long) image * cout + oc + j);
                        }
                    }
                    for (; ocg < oc1; ocg++) {
                        int oc = g * coutPerGroup + ocg;
                        outputChannel(planes[part], rows[part], oc);
                        writeOut(rows[part], 0, (long) image * cout + oc);
                    }
                }
            }
        }
    }

    /** Fills the phase planes of the group's input channels from image {@code imageGroup / groups}. */
    private void copyPlanes(int imageGroup, MemorySegment dst) {
        long x0 = (long) imageGroup * cinPerGroup * xChannelStride; // image-major, then group, then channel
        int extH = hd.extent();
        for (int ic = 0; ic < cinPerGroup; ic++) {
            long src = x0 + ic * xChannelStride;
            for (int a = 0; a < hd.stride; a++) {
                for (int b = 0; b < wd.stride; b++) {
                    long plane = ((long) ic * phases + a * wd.stride + b) * planeFloats;
                    for (int r = 0; r < extH; r++) {
                        int ih = hd.source(r, a);
                        long row = plane + (long) r * pitch;
                        if (ih < 0) {
                            FloatRows.fill(dst, row, 0f, pitch);
                        } else {
                            copyRow(src + (long) ih * wd.in, b, dst, row);
                        }
                    }
                }
            }
        }
    }

    /** One phase row: the input row's columns {@code j*sw + b - padW} for {@code j < P}, zero outside the row. */
    private void copyRow(long src, int b, MemorySegment dst, long row) {
        int j0 = 0;
        while (j0 < pitch && wd.source(j0, b) < 0) {
            j0++;
        }
        int j1 = j0;
        while (j1 < pitch && wd.source(j1, b) >= 0) {
            j1++;
        }
        FloatRows.fill(dst, row, 0f, j0);
        if (j1 > j0) {
            int first = wd.source(j0, b);
            if (wd.stride == 1) {
                FloatRows.copy(x, src + first, dst, row + j0, j1 - j0);
            } else {
                for (int j = j0; j < j1; j++) {
                    dst.setAtIndex(JAVA_FLOAT, row + j, x.getAtIndex(JAVA_FLOAT, src + first + (long) (j - j0) * wd.stride));
                }
            }
        }
        FloatRows.fill(dst, row + j1, 0f, pitch - j1);
    }

    /** Output channel {@code oc}'s bias plus its sums over all taps at every computed position, into {@code out}. */
    private void outputChannel(MemorySegment src, MemorySegment out, int oc) {
        long wBase = (long) oc * k;
        FloatVector start = FloatVector.broadcast(F, bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT, oc));
        int q = 0;
        for (; q + 4 * VL <= paddedPositions; q += 4 * VL) {
            FloatVector a0 = start;
            FloatVector a1 = a0;
            FloatVector a2 = a0;
            FloatVector a3 = a0;
            for (int t = 0; t < k; t++) {
                FloatVector wv = FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, wBase + t));
                long o = (tapOffset[t] + q) * 4;
                a0 = FloatVector.fromMemorySegment(F, src, o, LE).fma(wv, a0);
                a1 = FloatVector.fromMemorySegment(F, src, o + 4L * VL, LE).fma(wv, a1);
                a2 = FloatVector.fromMemorySegment(F, src, o + 8L * VL, LE).fma(wv, a2);
                a3 = FloatVector.fromMemorySegment(F, src, o + 12L * VL, LE).fma(wv, a3);
            }
            long qo = 4L * q;
            a0.intoMemorySegment(out, qo, LE);
            a1.intoMemorySegment(out, qo + 4L * VL, LE);
            a2.intoMemorySegment(out, qo + 8L * VL, LE);
            a3.intoMemorySegment(out, qo + 12L * VL, LE);
        }
        for (; q < paddedPositions; q += VL) {
            FloatVector a0 = start;
            for (int t = 0; t < k; t++) {
                FloatVector wv = FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, wBase + t));
                a0 = FloatVector.fromMemorySegment(F, src, (tapOffset[t] + q) * 4, LE).fma(wv, a0);
            }
            a0.intoMemorySegment(out, 4L * q, LE);
        }
    }

    /**
     * Output channels {@code oc .. oc + 3} (of one group) at once, two vectors of positions at a time: each input
     * load serves four FMAs, where {@link #outputChannel} is bound by its one load per FMA (mostly unaligned, so
     * split across cache lines). Channel {@code j}'s row goes to {@code out} at {@code j * paddedPositions}.
     */
    private void fourOutputChannels(MemorySegment src, MemorySegment out, int oc) {
        long w0 = (long) oc * k;
        long w1 = w0 + k;
        long w2 = w1 + k;
        long w3 = w2 + k;
        FloatVector b0 = FloatVector.broadcast(F, bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT, oc));
        FloatVector b1 = FloatVector.broadcast(F, bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT, oc + 1));
        FloatVector b2 = FloatVector.broadcast(F, bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT, oc + 2));
        FloatVector b3 = FloatVector.broadcast(F, bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT, oc + 3));
        long stride = 4L * paddedPositions;
        int q = 0;
        for (; q + 2 * VL <= paddedPositions; q += 2 * VL) {
            FloatVector a00 = b0;
            FloatVector a01 = b0;
            FloatVector a10 = b1;
            FloatVector a11 = b1;
            FloatVector a20 = b2;
            FloatVector a21 = b2;
            FloatVector a30 = b3;
            FloatVector a31 = b3;
            for (int t = 0; t < k; t++) {
                long o = (tapOffset[t] + q) * 4;
                FloatVector x0 = FloatVector.fromMemorySegment(F, src, o, LE);
                FloatVector x1 = FloatVector.fromMemorySegment(F, src, o + 4L * VL, LE);
                FloatVector c = FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, w0 + t));
                a00 = x0.fma(c, a00);
                a01 = x1.fma(c, a01);
                c = FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, w1 + t));
                a10 = x0.fma(c, a10);
                a11 = x1.fma(c, a11);
                c = FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, w2 + t));
                a20 = x0.fma(c, a20);
                a21 = x1.fma(c, a21);
                c = FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, w3 + t));
                a30 = x0.fma(c, a30);
                a31 = x1.fma(c, a31);
            }
            long qo = 4L * q;
            long next = 4L * VL;
            a00.intoMemorySegment(out, qo, LE);
            a01.intoMemorySegment(out, qo + next, LE);
            a10.intoMemorySegment(out, stride + qo, LE);
            a11.intoMemorySegment(out, stride + qo + next, LE);
            a20.intoMemorySegment(out, 2 * stride + qo, LE);
            a21.intoMemorySegment(out, 2 * stride + qo + next, LE);
            a30.intoMemorySegment(out, 3 * stride + qo, LE);
            a31.intoMemorySegment(out, 3 * stride + qo + next, LE);
        }
        for (; q < paddedPositions; q += VL) {
            FloatVector a0 = b0;
            FloatVector a1 = b1;
            FloatVector a2 = b2;
            FloatVector a3 = b3;
            for (int t = 0; t < k; t++) {
                FloatVector x0 = FloatVector.fromMemorySegment(F, src, (tapOffset[t] + q) * 4, LE);
                a0 = x0.fma(FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, w0 + t)), a0);
                a1 = x0.fma(FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, w1 + t)), a1);
                a2 = x0.fma(FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, w2 + t)), a2);
                a3 = x0.fma(FloatVector.broadcast(F, w.getAtIndex(JAVA_FLOAT, w3 + t)), a3);
            }
            long qo = 4L * q;
            a0.intoMemorySegment(out, qo, LE);
            a1.intoMemorySegment(out, stride + qo, LE);
            a2.intoMemorySegment(out, 2 * stride + qo, LE);
            a3.intoMemorySegment(out, 3 * stride + qo, LE);
        }
    }

    /**
     * Writes a computed row's valid columns (the first {@code outW} of each pitch), from {@code out} at
     * {@code from}, to output plane {@code plane}.
     */
    private void writeOut(MemorySegment out, long from, long plane) {
        long yo = plane * yChannelStride;
        for (int oh = 0; oh < rowsOut; oh++) {
            FloatRows.copy(out, from + (long) oh * pitch, y, yo + (long) oh * wd.out, wd.out);
        }
    }
}
