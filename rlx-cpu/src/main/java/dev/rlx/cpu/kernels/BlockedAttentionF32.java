package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * f32 scaled dot-product attention ({@link Op.Attention}) in blocks of {@link #BQ} queries, on the packed
 * SGEMM. For each (batch, head, query block): the scores of every key the block can see against the block,
 * {@code S^T = K Q^T} ({@code [keys, BQ]}, one column per query); a softmax down each column, where each
 * vector lane is one query, so max, exp and sum are plain lane-wise vector operations; then
 * {@code O = P^T V}, and each output row divided by its sum. A thread holds the scores of one block
 * ({@code Sk x BQ} floats), never the {@code Sq x Sk} matrix.
 *
 * <p>Takes f32 attention without softcap, with enough queries to fill a block, and with no mask operand or
 * one that is the same for every query (a key-padding mask, as BERT-style encoders pass: {@link #applies});
 * {@link AttentionKernel} does the rest one query row at a time. Causal and sliding window masks are applied
 * per key row as a lane range, a key mask per key row as one value. A query that sees no key gets a zero row,
 * as in {@link AttentionKernel}.
 */
final class BlockedAttentionF32 implements Kernel, RangeTask {
    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Queries per block: one micro-tile wide, so the score product wastes no columns. */
    static final int BQ = Sgemm.NR;
    /** Multiply-adds below which one thread does everything. */
    private static final long SERIAL_WORK = 1 << 16;

    private final MemorySegment out;
    private final HeadView qv;
    private final HeadView vv;
    private final int numHeads;
    private final int numKvHeads;
    private final int groupSize;
    private final int headDim;
    private final int sq;
    private final int sk;
    private final boolean causal;
    private final int window;
    private final float scale;
    private final AttentionMask mask; // the same for every query
    private final int blocks; // query blocks per head
    private final int units;  // B * numHeads * blocks
    private final int parts;
    private final WorkCursor cursor = new WorkCursor(); // blocks, taken by the parts as they finish
    private final Sgemm.Mat[] keys;    // per (b, kv head): K [Sk, D], rows in place
    private final Sgemm.Mat[] queriesT; // per (b, head): Q^T [D, Sq]
    private final Sgemm.Mat[] values;  // per (b, kv head): V [Sk, D]
    private final Sgemm.Mat[] probsT;  // per part: P^T [BQ, Sk] over that part's score buffer
    private final MemorySegment[] scores; // per part: Sk x BQ floats, row j = key j
    private final MemorySegment[] sums;   // per part: BQ floats, 1 / (row sum) of each query
    private final Sgemm.Workspace[] workspaces;
    private final Parallel parallel;

    /** Whether the blocked kernel takes this attention: f32, no softcap, >= BQ/4 queries, no mask or a key mask. */
    static boolean applies(Node n, LowerContext ctx) {
        Op.Attention a = (Op.Attention) n.op();
        HeadView q = HeadView.of(ctx.in(n, 0).shape(), a.layout(), a.headDim());
        if (ctx.in(n, 0).dtype() != DType.F32 || a.softcap() != 0 || q.seq() < BQ / 4) {
            return false;
        }
        return AttentionMask.of(n, ctx).strides()[2] == 0; // no mask, or one the same for every query
    }

    BlockedAttentionF32(Node n, LowerContext ctx) {
        Op.Attention a = (Op.Attention) n.op();
        Buf qb = ctx.in(n, 0);
        Buf kb = ctx.in(n, 1);
        Buf vb = ctx.in(n, 2);
        this.out = ctx.out(n, 0).seg();
        this.qv = HeadView.of(qb.shape(), a.layout(), a.headDim());
        HeadView kv = HeadView.of(kb.shape(), a.layout(), a.headDim());
        this.vv = HeadView.of(vb.shape(), a.layout(), a.headDim());
        this.numHeads = a.numHeads();
        this.numKvHeads = a.numKvHeads();
        this.groupSize = numHeads / numKvHeads;
        this.headDim = a.headDim();
        this.sq = qv.seq();
        this.sk = kv.seq();
        this.causal = a.mask() != Op.Attention.Mask.NONE;
        this.window = a.mask() == Op.Attention.Mask.SLIDING_WINDOW ? a.window() : Math.max(1, sk);
        this.scale = a.scale();
        this.mask = AttentionMask.of(n, ctx);
        this.blocks = (sq + BQ - 1) / BQ;
        this.units = qv.batch() * numHeads * blocks;
        long work = (long) qv.batch() * numHeads * sq * sk * headDim;
        this.parts = work < SERIAL_WORK ? 1 : Math.max(1, Math.min(ctx.parallel().threads(), units));
        int batch = qv.batch();
        this.keys = new Sgemm.Mat[batch * numKvHeads];
        this.values = new Sgemm.Mat[batch * numKvHeads];
        this.queriesT = new Sgemm.Mat[batch * numHeads];
        for (int b = 0; b < batch; b++) {
            for (int h = 0; h < numKvHeads; h++) {
                keys[b * numKvHeads + h] = new Sgemm.Mat(kb.seg(), kv.offset(b, 0, h), kv.seqStride(), 1);
                values[b * numKvHeads + h] = new Sgemm.Mat(vb.seg(), vv.offset(b, 0, h), vv.seqStride(), 1);
            }
            for (int h = 0; h < numHeads; h++) {
                queriesT[b * numHeads + h] = new Sgemm.Mat(qb.seg(), qv.offset(b, 0, h), 1, qv.seqStride());
            }
        }
        this.scores = new MemorySegment[parts];
        this.sums = new MemorySegment[parts];
        this.probsT = new Sgemm.Mat[parts];
        this.workspaces = new Sgemm.Workspace[parts];
        int columns = Math.max(BQ, headDim);
        for (int p = 0; p < parts; p++) {
            scores[p] = ctx.workspace(4L * Math.max(1, sk) * BQ);
            sums[p] = ctx.workspace(4L * BQ);
            probsT[p] = new Sgemm.Mat(scores[p], 0, 1, BQ);
            workspaces[p] = Sgemm.Workspace.of(ctx.workspace(Sgemm.Workspace.bytes(columns)), columns);
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
            // taken as parts finish: evens out causal blocks (larger with position) and unequal threads
            for (int begin = cursor.take(); begin >= 0; begin = cursor.take()) {
                for (int u = begin, end = cursor.end(begin); u < end; u++) {
                    block(u, part);
                }
            }
        }
    }

    /** Last key query {@code i} sees (negative: none). */
    private int lastKey(int i) {
        return causal ? Math.min(sk - 1, i + sk - sq) : sk - 1;
    }

    private void block(int u, int part) {
        int qb = u % blocks;
        int h = (u / blocks) % numHeads;
        int b = u / blocks / numHeads;
        int kh = h / groupSize;
        int q0 = qb * BQ;
        int q1 = Math.min(sq, q0 + BQ);
        int nq = q1 - q0;
        int first = Math.max(0, lastKey(q0) - window + 1);
        int last = lastKey(q1 - 1);
        long outRow = qv.offset(b, q0, h);
        if (last < first) { // no query of the block sees a key
            for (int i = 0; i < nq; i++) {
                FloatRows.fill(out, outRow + i * qv.seqStride(), 0f, headDim);
            }
            return;
        }
        MemorySegment s = scores[part];
        // S^T[j, i - q0] = K[j] . Q[i] for the visible keys j in [first, last]
        Sgemm.multiply(keys[b * numKvHeads + kh], queriesT[b * numHeads + h], s, -q0, BQ, first, last + 1, q0, q1,
                0, headDim, workspaces[part], null);
        softmaxColumns(s, sums[part], first, last, q0, mask.row(b, h, 0));
        // O[i] = sum_j P^T[i, j] V[j], then O[i] /= sum_i
        Sgemm.multiply(probsT[part], values[b * numKvHeads + kh], out, outRow, qv.seqStride(), 0, nq, 0, headDim,
                first, last + 1, workspaces[part], null);
        MemorySegment inv = sums[part];
        for (int i = 0; i < nq; i++) {
            FloatRows.scale(out, outRow + i * qv.seqStride(), inv.getAtIndex(JAVA_FLOAT, i), headDim);
        }
    }

    /**
     * Turns the scaled scores of rows [first, last] into unnormalised probabilities {@code exp(s - max)} per
     * column (query), zero where a key is masked for that query, and writes each column's {@code 1 / sum}
     * (0 for a query that sees nothing) to {@code inv}. Lanes past the block's queries hold garbage nobody
     * reads. {@code maskRow} is the mask's offset for this batch and head (it does not vary by query).
     */
    private void softmaxColumns(MemorySegment s, MemorySegment inv, int first, int last, int q0, long maskRow) {
        int shift = sk - sq; // query i sees keys j <= i + shift when causal
        for (int c = 0; c < BQ; c += W) {
            // lanes of this vector are queries q0 + c + lane
            FloatVector max = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
            for (int j = first; j <= last; j++) {
                long at = ((long) j * BQ + c) * 4;
                // visible lanes l in [lo, end): causal, j - shift <= query <= j - shift + window - 1; else all.
                // Always blended (no branch around a vector, which C2 could box)
                int lo = causal ? j - shift - q0 - c : 0;
                int end = causal ? lo + window : W;
                VectorMask<Float> seen = F.indexInRange(-lo, W - lo).and(F.indexInRange(0, end));
                float add = mask.present() ? keyMask(maskRow + j * mask.strides()[3]) : 0f;
                FloatVector x = FloatVector.fromMemorySegment(F, s, at, LE).mul(scale).add(add)
                        .blend(Float.NEGATIVE_INFINITY, seen.not());
                x.intoMemorySegment(s, at, LE);
                max = max.max(x);
            }
            // a column that sees nothing has max -inf: subtract 0 instead, so its exps are 0, not NaN
            max = max.blend(0f, max.compare(VectorOperators.EQ, Float.NEGATIVE_INFINITY));
            FloatVector sum = FloatVector.zero(F);
            for (int j = first; j <= last; j++) {
                long at = ((long) j * BQ + c) * 4;
                FloatVector p = VectorMath.expNonPositive(FloatVector.fromMemorySegment(F, s, at, LE).sub(max),
                        s, at);
                p.intoMemorySegment(s, at, LE);
                sum = sum.add(p);
            }
            FloatVector one = FloatVector.broadcast(F, 1f);
            FloatVector r = one.div(sum).blend(0f, sum.compare(VectorOperators.EQ, 0f));
            r.intoMemorySegment(inv, c * 4L, LE);
        }
    }

    /** The key mask's term for one key: its additive value, or 0 / -inf for a kept / dropped key. */
    private float keyMask(long at) {
        return mask.drops(at) ? Float.NEGATIVE_INFINITY : (float) mask.added(at);
    }
}
