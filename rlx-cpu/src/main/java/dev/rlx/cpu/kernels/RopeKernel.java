package dev.rlx.cpu.kernels;

import dev.rlx.ir.Elements;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Rotary position embedding ({@link Op.Rope}) over each head vector of x: pair i is (a, b) =
 * {@code (x[i*step], x[i*step + partner])} — step 1 and partner {@code rotaryDim/2} for rotate-half, step 2 and
 * partner 1 for interleaved — rotated by the angle whose cos and sin sit at {@code [(b,) s, i]} in the
 * tables; dims from {@code rotaryDim} on are copied. f32 rotate-half runs on the Vector API (its halves are
 * contiguous); everything else uses the scalar double path. Parallel over (batch, position, head) rows.
 */
final class RopeKernel implements Kernel, RangeTask {
    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final MemorySegment x;
    private final MemorySegment y; // x's shape, so x's view addresses it too
    private final MemorySegment cos;
    private final MemorySegment sin;
    private final DType dtype;
    private final HeadView xv;
    private final int headDim;
    private final int rotaryDim;
    private final int half; // pairs per head = rotaryDim / 2
    private final int step; // distance between consecutive pairs' first elements
    private final int partner; // distance from a pair's first element to its second
    private final boolean vectorF32;
    private final long tableBatchStride; // 0 for [S, half] tables shared by every batch
    private final int rows; // B * S * H
    private final Parallel parallel;

    private RopeKernel(Node n, LowerContext ctx) {
        Op.Rope r = (Op.Rope) n.op();
        Buf xb = ctx.in(n, 0);
        Buf cb = ctx.in(n, 1);
        this.x = xb.seg();
        this.y = ctx.out(n, 0).seg();
        this.cos = cb.seg();
        this.sin = ctx.in(n, 2).seg();
        this.dtype = xb.dtype();
        this.xv = HeadView.of(xb.shape(), r.layout(), r.headDim());
        this.headDim = r.headDim();
        this.rotaryDim = r.rotaryDim();
        this.half = r.rotaryDim() / 2;
        this.step = r.interleaved() ? 2 : 1;
        this.partner = r.interleaved() ? 1 : half;
        this.vectorF32 = dtype == DType.F32 && !r.interleaved();
        this.tableBatchStride = cb.shape().rank() == 3 ? (long) xv.seq() * half : 0;
        this.rows = Math.toIntExact((long) xv.batch() * xv.seq() * xv.heads());
        this.parallel = ctx.parallel();
    }

    static Kernel of(Node n, LowerContext ctx) {
        return ctx.in(n, 0).size() == 0 ? Kernels.NONE : new RopeKernel(n, ctx);
    }

    @Override
    public void run() {
        parallel.parallelFor(rows, Math.max(1, 16_384 / headDim), this);
    }

    @Override
    public void range(int from, int to) {
        int heads = xv.heads();
        int seq = xv.seq();
        for (int row = from; row < to; row++) {
            int h = row % heads;
            int s = (row / heads) % seq;
            int b = row / heads / seq;
            long xo = xv.offset(b, s, h);
            long tableRow = b * tableBatchStride + (long) s * half;
            int done = vectorF32 ? rotateHalfF32(xo, tableRow) : 0;
            for (int i = done; i < half; i++) {
                rotatePair(xo + (long) i * step, tableRow + i);
            }
            if (rotaryDim < headDim) {
                long bytes = dtype.byteSize();
                MemorySegment.copy(x, (xo + rotaryDim) * bytes, y, (xo + rotaryDim) * bytes, (headDim - rotaryDim) * bytes);
            }
        }
    }

    /** Rotates the pair starting at element {@code at} by table entry {@code t}: the scalar definition. */
    private void rotatePair(long at, long t) {
        double a = Elements.getDouble(x, at, dtype);
        double b = Elements.getDouble(x, at + partner, dtype);
        double c = Elements.getDouble(cos, t, dtype);
        double s = Elements.getDouble(sin, t, dtype);
        Elements.setDouble(y, at, dtype, a * c - b * s);
        Elements.setDouble(y, at + partner, dtype, b * c + a * s);
    }

    /** Rotate-half over whole vectors of pairs; returns how many pairs it did (the rest is the scalar tail). */
    private int rotateHalfF32(long xo, long tableRow) {
        int bound = F.loopBound(half);
        for (int i = 0; i < bound; i += F.length()) {
            FloatVector a = FloatVector.fromMemorySegment(F, x, (xo + i) * 4, LE);
            FloatVector b = FloatVector.fromMemorySegment(F, x, (xo + half + i) * 4, LE);
            FloatVector c = FloatVector.fromMemorySegment(F, cos, (tableRow + i) * 4, LE);
            FloatVector s = FloatVector.fromMemorySegment(F, sin, (tableRow + i) * 4, LE);
            a.mul(c).sub(b.mul(s)).intoMemorySegment(y, (xo + i) * 4, LE);
            b.mul(c).add(a.mul(s)).intoMemorySegment(y, (xo + half + i) * 4, LE);
        }
        return bound;
    }
}
