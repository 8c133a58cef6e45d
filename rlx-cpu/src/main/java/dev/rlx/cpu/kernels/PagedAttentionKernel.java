package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.runtime.CompileException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Locale;

/**
 * Attention over a paged KV pool ({@link Op.PagedAttention}): each sequence's queries against the keys and values
 * its block table points at, in the pool or the spill pool, causal within the sequence's chunk.
 *
 * <p>{@code run} first checks the block table, kv lengths and query offsets (untrusted data: a bad value is an
 * {@link IndexOutOfRangeException} naming the operand, thrown before anything is written), then plans work units
 * of (sequence, kv head, tile of up to {@value #TILE_ROWS} query rows: positions x the group's query heads). A unit
 * walks the blocks its queries can see, decodes that kv head's key rows and value rows of one block into its
 * part's scratch ({@code tokensPerBlock x headDim} floats each; quantised blocks are dequantised here and nowhere
 * else), and folds the block into each query row with an online softmax (running maximum and sum in double,
 * the accumulator rescaled when the maximum grows; dot products and the value accumulator in f32). So each K/V
 * row is decoded once per tile, not once per query head: what grouped-query attention saves. Units are taken by
 * the parts as they finish ({@link WorkCursor}); each unit is computed by one part in a fixed order, so the result
 * does not depend on the thread count. Rows no sequence owns are zeroed. Nothing is allocated in {@code run}.
 */
final class PagedAttentionKernel implements Kernel, RangeTask {
    /** Query rows (positions x heads of one group) that share one decoded block. */
    static final int TILE_ROWS = 32;
    /** Multiply-adds below which one thread does everything (dispatch would cost more). */
    private static final long SERIAL_WORK = 1 << 16;

    private final String node;
    private final MemorySegment q;
    private final MemorySegment pool;
    private final MemorySegment spill;
    private final MemorySegment table;
    private final MemorySegment lens;
    private final MemorySegment offsets;
    private final MemorySegment out;
    private final BlockFormat format;
    private final int numHeads;
    private final int kvHeads;
    private final int group; // query heads per kv head
    private final int headDim;
    private final int tpb; // tokens per block
    private final long headRowsBytes; // one kv head's rows of one block: tpb x headRowBytes
    private final long keysBytes;
    private final long blockBytes;
    private final int ramSlots;
    private final int spillSlots;
    private final int queryRows; // T
    private final int seqs; // S
    private final int maxBlocks;
    private final int tilePositions;
    private final double scale;
    private final int[] unitSeq; // (max units) sequence of each unit
    private final int[] unitHead; // (max units) kv head
    private final int[] unitPos; // (max units) first query position within the sequence's chunk
    private final Scratch[] scratch; // one per part
    private final WorkCursor cursor = new WorkCursor();
    private final Parallel parallel;
    private int units; // planned by run()
    private int parts; // taking part in this run

    private PagedAttentionKernel(Node n, LowerContext ctx) {
        Op.PagedAttention a = (Op.PagedAttention) n.op();
        this.node = n.describe();
        this.q = ctx.in(n, 0).seg();
        this.pool = ctx.in(n, 1).seg();
        this.spill = ctx.in(n, 2).seg();
        this.table = ctx.in(n, 3).seg();
        this.lens = ctx.in(n, 4).seg();
        this.offsets = ctx.in(n, 5).seg();
        this.out = ctx.out(n, 0).seg();
        this.format = a.storage();
        this.numHeads = a.numHeads();
        this.kvHeads = a.kvHeads();
        this.group = numHeads / kvHeads;
        this.headDim = a.headDim();
        this.tpb = a.tokensPerBlock();
        this.headRowsBytes = (long) tpb * a.headRowBytes();
        this.keysBytes = a.keysBytes();
        this.blockBytes = a.blockBytes();
        this.ramSlots = ctx.in(n, 1).shape().dim(0);
        this.spillSlots = ctx.in(n, 2).shape().dim(0);
        this.queryRows = ctx.in(n, 0).shape().dim(0);
        this.seqs = ctx.in(n, 3).shape().dim(0);
        this.maxBlocks = ctx.in(n, 3).shape().dim(1);
        this.tilePositions = Math.max(1, TILE_ROWS / group);
        this.scale = a.scale();
        // Valid data makes at most ceil(T / tilePositions) + S tiles (each sequence's last may be partial).
        long maxUnits = ((long) Math.ceilDiv(queryRows, tilePositions) + seqs) * kvHeads;
        if (maxUnits > Integer.MAX_VALUE || (long) tpb * headDim > Integer.MAX_VALUE / 2
                || (long) TILE_ROWS * numHeads * headDim > Integer.MAX_VALUE) {
            throw new CompileException("cpu: paged_attention " + node + " is too large for this kernel: " + maxUnits
                    + " work units, " + tpb + " x " + headDim + " block rows, " + numHeads + " x " + headDim
                    + " query rows");
        }
        this.unitSeq = new int[(int) maxUnits];
        this.unitHead = new int[(int) maxUnits];
        this.unitPos = new int[(int) maxUnits];
        int maxParts = (int) Math.max(1, Math.min(ctx.parallel().threads(), maxUnits));
        this.scratch = new Scratch[maxParts];
        for (int p = 0; p < maxParts; p++) {
            scratch[p] = new Scratch(tpb * headDim, tilePositions * group, headDim, ctx);
        }
        this.parallel = ctx.parallel();
    }

    static Kernel of(Node n, LowerContext ctx) {
        return new PagedAttentionKernel(n, ctx);
    }

    @Override
    public void run() {
        long work = validate();
        plan();
        parts = work < SERIAL_WORK ? 1 : Math.min(scratch.length, Math.max(1, units));
        cursor.reset(units, parts);
        parallel.parallelFor(parts, 1, this);
    }

    @Override
    public void range(int from, int to) {
        for (int part = from; part < to; part++) {
            Scratch s = scratch[part];
            for (int begin = cursor.take(); begin >= 0; begin = cursor.take()) {
                for (int u = begin, end = cursor.end(begin); u < end; u++) {
                    unit(unitSeq[u], unitHead[u], unitPos[u], s);
                }
            }
        }
    }

    private int offset(int s) {
        return offsets.getAtIndex(JAVA_INT, s);
    }

    private int kvLen(int s) {
        return lens.getAtIndex(JAVA_INT, s);
    }

    private int slot(int s, int block) {
        return table.getAtIndex(JAVA_INT, (long) s * maxBlocks + block);
    }

    /**
     * Checks the offsets, lengths and each row's used table entries; returns an upper bound of the multiply-adds.
     *
     * @throws IndexOutOfRangeException naming the first value that breaks the op's data rules
     */
    private long validate() {
        int first = offset(0);
        if (first < 0 || first > queryRows) {
            throw bad("queryOffsets[0] = %d is outside the %d query rows of q: expected 0 <= off[0] <= %d", first,
                    queryRows, queryRows);
        }
        long tableTokens = (long) maxBlocks * tpb;
        long work = 0;
        for (int s = 0; s < seqs; s++) {
            int from = offset(s);
            int to = offset(s + 1);
            if (to < from || to > queryRows) {
                throw bad("queryOffsets[%d] = %d must be within [off[%d] = %d, T = %d]", s + 1, to, s, from,
                        queryRows);
            }
            int len = kvLen(s);
            if (len < 0 || len > tableTokens) {
                throw bad("kvLens[%d] = %d is outside [0, %d]: blockTable rows hold %d blocks of %d tokens", s, len,
                        tableTokens, maxBlocks, tpb);
            }
            int n = to - from;
            if (n > len) {
                throw bad("sequence %d has %d query rows (queryOffsets[%d..%d] = %d..%d) but holds only kvLens[%d] = %d"
                        + " tokens, its queries included", s, n, s, s + 1, from, to, s, len);
            }
            for (int b = 0, used = Math.ceilDiv(len, tpb); b < used; b++) {
                int e = slot(s, b);
                if (e >= ramSlots || (e < 0 && -(long) e - 1 >= spillSlots)) {
                    throw bad("blockTable[%d][%d] = %d is not a slot: pool has %d (entries 0..%d), spill %d "
                            + "(entries -1..%d)", s, b, e, ramSlots, ramSlots - 1, spillSlots, -spillSlots);
                }
            }
            work += (long) n * len;
        }
        return work * numHeads * headDim;
    }

    /** Lists the work units and zeroes the query rows no sequence owns. */
    private void plan() {
        units = 0;
        for (int s = 0; s < seqs; s++) {
            int n = offset(s + 1) - offset(s);
            for (int p = 0; p < n; p += tilePositions) {
                for (int kh = 0; kh < kvHeads; kh++) {
                    unitSeq[units] = s;
                    unitHead[units] = kh;
                    unitPos[units] = p;
                    units++;
                }
            }
        }
        zeroRows(0, offset(0));
        zeroRows(offset(seqs), queryRows);
    }

    private void zeroRows(int from, int to) {
        int rowFloats = numHeads * headDim;
        for (int t = from; t < to; t++) {
            FloatRows.fill(out, (long) t * rowFloats, 0f, rowFloats);
        }
    }

    /** Query positions {@code [p0, p0 + tilePositions)} of sequence {@code si}, all heads of kv head {@code kh}. */
    private void unit(int si, int kh, int p0, Scratch s) {
        int rowStart = offset(si);
        int qlen = offset(si + 1) - rowStart;
        int len = kvLen(si);
        int p1 = Math.min(qlen, p0 + tilePositions);
        int base = len - qlen; // absolute position of query 0
        int rows = (p1 - p0) * group;
        Arrays.fill(s.max, 0, rows, Double.NEGATIVE_INFINITY);
        Arrays.fill(s.sum, 0, rows, 0);
        FloatRows.fill(s.accRows, 0, 0f, rows * headDim);
        int lastKey = base + p1 - 1;
        for (int bi = 0, t0 = 0; t0 <= lastKey; bi++, t0 += tpb) {
            int tn = Math.min(tpb, lastKey + 1 - t0);
            int e = slot(si, bi);
            MemorySegment seg = e >= 0 ? pool : spill;
            long at = (e >= 0 ? e : -(long) e - 1) * blockBytes + kh * headRowsBytes;
            s.decode(format, seg, at, s.keyRows, tn * headDim); // this head's rows are contiguous in the block
            s.decode(format, seg, at + keysBytes, s.valRows, tn * headDim);
            for (int p = p0; p < p1; p++) {
                int visible = Math.min(tn, base + p - t0 + 1);
                if (visible <= 0) {
                    continue; // causal: this block starts after the query
                }
                long qRow = ((long) (rowStart + p) * numHeads + (long) kh * group) * headDim;
                for (int g = 0; g < group; g++) {
                    fold(s, (p - p0) * group + g, qRow + (long) g * headDim, visible);
                }
            }
        }
        for (int p = p0; p < p1; p++) {
            long qRow = ((long) (rowStart + p) * numHeads + (long) kh * group) * headDim;
            for (int g = 0; g < group; g++) {
                int r = (p - p0) * group + g;
                // sum >= 1 (the maximum key contributes exp(0)), and every query sees key 0
                FloatRows.scale(s.accRows, (long) r * headDim, (float) (1 / s.sum[r]), headDim);
                FloatRows.copy(s.accRows, (long) r * headDim, out, qRow + (long) g * headDim, headDim);
            }
        }
    }

    /** Folds the first {@code visible} decoded keys/values of the block into row {@code r}'s online softmax. */
    private void fold(Scratch s, int r, long qo, int visible) {
        double blockMax = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < visible; j++) {
            double sc = scale * FloatRows.dot(q, qo, s.keyRows, (long) j * headDim, headDim);
            s.scores[j] = sc;
            blockMax = Math.max(blockMax, sc);
        }
        long ao = (long) r * headDim;
        if (blockMax > s.max[r]) {
            double correction = StrictMath.exp(s.max[r] - blockMax); // 0 on the first block
            s.sum[r] *= correction;
            FloatRows.scale(s.accRows, ao, (float) correction, headDim);
            s.max[r] = blockMax;
        }
        double m = s.max[r];
        for (int j = 0; j < visible; j++) {
            double p = StrictMath.exp(s.scores[j] - m);
            s.sum[r] += p;
            FloatRows.axpy((float) p, s.valRows, (long) j * headDim, 1, s.accRows, ao, 1, headDim);
        }
    }

    private IndexOutOfRangeException bad(String format, Object... args) {
        return new IndexOutOfRangeException("[paged_attention] " + node + ": "
                + String.format(Locale.ROOT, format, args));
    }

    /**
     * One part's working memory: a block's decoded key and value rows, one query row's scores against it, and the
     * running maximum, sum and accumulator of a tile's rows. The rows the Vector API reads are native workspace:
     * a heap segment given to {@code FloatVector.fromMemorySegment} anywhere in the process makes that JDK
     * method's type profile bimorphic, and every kernel's loads compiled afterwards test the segment's class
     * per access (a Q8_0 matmul ran 2-3x slower beside this kernel when these rows were float arrays).
     */
    private static final class Scratch {
        final float[] decoded; // (tpb, headDim): the codec decodes into an array
        final double[] scores; // (tpb)
        final double[] max; // (rows)
        final double[] sum; // (rows) of exp(score - max)
        final MemorySegment keyRows; // (tpb, headDim)
        final MemorySegment valRows; // (tpb, headDim)
        final MemorySegment accRows; // (rows, headDim) of p * v

        Scratch(int blockFloats, int rows, int headDim, LowerContext ctx) {
            decoded = new float[blockFloats];
            scores = new double[blockFloats / headDim];
            max = new double[rows];
            sum = new double[rows];
            // workspace: each unit writes all three before reading them, and parts get disjoint requests
            keyRows = ctx.workspace(4L * blockFloats);
            valRows = ctx.workspace(4L * blockFloats);
            accRows = ctx.workspace(4L * rows * headDim);
        }

        /** {@code n} floats of a stored block at {@code at}, decoded into {@code rows}. */
        void decode(BlockFormat format, MemorySegment seg, long at, MemorySegment rows, int n) {
            format.decode(seg, at, decoded, 0, n);
            MemorySegment.copy(decoded, 0, rows, ValueLayout.JAVA_FLOAT, 0, n);
        }
    }
}
