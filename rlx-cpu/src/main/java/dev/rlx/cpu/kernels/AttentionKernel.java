package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;

import dev.rlx.ir.DType;
import dev.rlx.ir.Elements;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.CompileException;
import java.lang.foreign.MemorySegment;

/**
 * Scaled dot-product attention ({@link Op.Attention}), one query row at a time (f32 attention with many queries
 * and no mask operand or softcap goes to {@link BlockedAttentionF32} instead): the row's scores over its
 * visible keys go to a per-thread scratch row (the full {@code [Sq, Sk]} matrix is never formed), then a
 * max-subtracted softmax, then the probability-weighted sum of V. f32 runs the q.k dot products and the
 * p.v accumulation on the Vector API; other float dtypes compute in double through {@link Elements}.
 * Scores and probabilities are always held in double.
 *
 * <p>Work is the {@code B * numHeads * Sq} query rows, dealt round-robin to one chunk per thread (so causal
 * rows, whose cost grows with the position, spread evenly); chunk c owns scratch region c.
 */
final class AttentionKernel implements Kernel, RangeTask {
    /** Score of a key that is masked out; exp turns it into probability 0. */
    private static final double MASKED = Double.NEGATIVE_INFINITY;
    /** Multiply-adds below which one thread does everything (dispatch would cost more). */
    private static final long SERIAL_WORK = 1 << 16;

    private final MemorySegment q;
    private final MemorySegment k;
    private final MemorySegment v;
    private final MemorySegment out; // q's shape, so q's view addresses it too
    private final DType dtype;
    private final boolean f32;
    private final HeadView qv;
    private final HeadView kv;
    private final HeadView vv;
    private final int numHeads;
    private final int groupSize; // query heads per kv head
    private final int headDim;
    private final int sq;
    private final int sk;
    private final boolean causal;
    private final int window; // visible keys up to the causal limit: Op window, or sk when not sliding
    private final double scale;
    private final double softcap;
    private final AttentionMask mask;
    private final int rows; // B * numHeads * Sq
    private final int chunks;
    private final MemorySegment scratch; // chunks x (sk scores, headDim accumulators), doubles
    private final long chunkDoubles;
    private final Parallel parallel;

    private AttentionKernel(Node n, LowerContext ctx) {
        Op.Attention a = (Op.Attention) n.op();
        Buf qb = ctx.in(n, 0);
        Buf kb = ctx.in(n, 1);
        this.q = qb.seg();
        this.k = kb.seg();
        this.v = ctx.in(n, 2).seg();
        this.out = ctx.out(n, 0).seg();
        this.dtype = qb.dtype();
        this.f32 = dtype == DType.F32;
        this.qv = HeadView.of(qb.shape(), a.layout(), a.headDim());
        this.kv = HeadView.of(kb.shape(), a.layout(), a.headDim());
        this.vv = HeadView.of(ctx.in(n, 2).shape(), a.layout(), a.headDim());
        this.numHeads = a.numHeads();
        this.groupSize = a.numHeads() / a.numKvHeads();
        this.headDim = a.headDim();
        this.sq = qv.seq();
        this.sk = kv.seq();
        this.causal = a.mask() != Op.Attention.Mask.NONE;
        this.window = a.mask() == Op.Attention.Mask.SLIDING_WINDOW ? a.window() : Math.max(1, sk);
        this.scale = a.scale();
        this.softcap = a.softcap();
        this.mask = AttentionMask.of(n, ctx);
        long r = (long) qv.batch() * numHeads * sq;
        if (r > Integer.MAX_VALUE) {
            throw new CompileException("cpu: attention " + n.describe() + " has " + r + " query rows; at most 2^31-1");
        }
        this.rows = (int) r;
        long work = r * sk * headDim;
        this.chunks = work < SERIAL_WORK ? 1 : (int) Math.max(1, Math.min(ctx.parallel().threads(), r));
        this.chunkDoubles = roundUp((long) sk + headDim, 8); // 64-byte regions: no false sharing
        this.scratch = ctx.scratch(chunks * chunkDoubles * Double.BYTES);
        this.parallel = ctx.parallel();
    }

    static Kernel of(Node n, LowerContext ctx) {
        Shape q = ctx.in(n, 0).shape();
        if (q.elementCount() == 0) {
            return Kernels.NONE;
        }
        return BlockedAttentionF32.applies(n, ctx) ? new BlockedAttentionF32(n, ctx) : new AttentionKernel(n, ctx);
    }

    @Override
    public void run() {
        parallel.parallelFor(chunks, 1, this);
    }

    @Override
    public void range(int from, int to) {
        for (int c = from; c < to; c++) {
            long base = c * chunkDoubles;
            for (int row = c; row < rows; row += chunks) {
                queryRow(row, base);
            }
        }
    }

    /** Attention output for one (batch, head, query) row, using scratch doubles from {@code base}. */
    private void queryRow(int row, long base) {
        int qi = row % sq;
        int h = (row / sq) % numHeads;
        int b = row / sq / numHeads;
        int kh = h / groupSize;
        long qo = qv.offset(b, qi, h);
        // Keys [first, last]: all, or up to the causal limit (negative when Sq > Sk: nothing visible),
        // and for a sliding window only the last `window` of those.
        int last = causal ? Math.min(sk - 1, qi + sk - sq) : sk - 1;
        int first = Math.max(0, last - window + 1);
        long maskRow = mask.row(b, h, qi);
        double max = MASKED;
        for (int j = first; j <= last; j++) {
            double s = score(qo, kv.offset(b, j, kh), maskRow + j * mask.strides()[3]);
            scratch.setAtIndex(JAVA_DOUBLE, base + j - first, s);
            max = Math.max(max, s);
        }
        if (max == MASKED) { // no visible key: the row is defined as zeros
            zeroRow(qo);
            return;
        }
        double sum = 0;
        for (int j = first; j <= last; j++) {
            long si = base + j - first;
            double p = StrictMath.exp(scratch.getAtIndex(JAVA_DOUBLE, si) - max);
            scratch.setAtIndex(JAVA_DOUBLE, si, p);
            sum += p;
        }
        if (f32) {
            weightedSumF32(b, kh, first, last, base, qo, 1 / sum);
        } else {
            weightedSumGeneric(b, kh, first, last, base, qo, 1 / sum);
        }
    }

    /** {@code mask(softcap(scale * q.k))} for one key; {@link #MASKED} where a keep-mask is false. */
    private double score(long qo, long ko, long maskAt) {
        double s = scale * dot(qo, ko);
        if (softcap > 0) {
            s = softcap * StrictMath.tanh(s / softcap);
        }
        if (mask.present()) {
            if (mask.drops(maskAt)) {
                return MASKED;
            }
            s += mask.added(maskAt);
        }
        return s;
    }

    private double dot(long qo, long ko) {
        if (f32) {
            return FloatRows.dot(q, qo, k, ko, headDim);
        }
        double acc = 0;
        for (int d = 0; d < headDim; d++) {
            acc += Elements.getDouble(q, qo + d, dtype) * Elements.getDouble(k, ko + d, dtype);
        }
        return acc;
    }

    /** {@code out = inv * sum_j p_j v_j}, accumulated in place in the f32 output row. */
    private void weightedSumF32(int b, int kh, int first, int last, long base, long oo, double inv) {
        FloatRows.fill(out, oo, 0f, headDim);
        for (int j = first; j <= last; j++) {
            float p = (float) scratch.getAtIndex(JAVA_DOUBLE, base + j - first);
            if (p != 0) {
                FloatRows.axpy(p, v, vv.offset(b, j, kh), 1, out, oo, 1, headDim);
            }
        }
        FloatRows.scale(out, oo, (float) inv, headDim);
    }

    /** As {@link #weightedSumF32}, accumulating in double scratch after the scores. */
    private void weightedSumGeneric(int b, int kh, int first, int last, long base, long oo, double inv) {
        long acc = base + sk;
        for (int d = 0; d < headDim; d++) {
            scratch.setAtIndex(JAVA_DOUBLE, acc + d, 0);
        }
        for (int j = first; j <= last; j++) {
            double p = scratch.getAtIndex(JAVA_DOUBLE, base + j - first);
            long vo = vv.offset(b, j, kh);
            for (int d = 0; d < headDim; d++) {
                double x = scratch.getAtIndex(JAVA_DOUBLE, acc + d) + p * Elements.getDouble(v, vo + d, dtype);
                scratch.setAtIndex(JAVA_DOUBLE, acc + d, x);
            }
        }
        for (int d = 0; d < headDim; d++) {
            Elements.setDouble(out, oo + d, dtype, scratch.getAtIndex(JAVA_DOUBLE, acc + d) * inv);
        }
    }

    private void zeroRow(long oo) {
        for (int d = 0; d < headDim; d++) {
            Elements.setDouble(out, oo + d, dtype, 0);
        }
    }

    private static long roundUp(long x, long m) {
        return (x + m - 1) / m * m;
    }
}
