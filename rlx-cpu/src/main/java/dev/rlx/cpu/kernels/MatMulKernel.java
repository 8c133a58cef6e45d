package dev.rlx.cpu.kernels;

import dev.rlx.cpu.blas.OpenBlas;
import dev.rlx.ir.Elements;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.spi.WeightCopies;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code numpy.matmul} with optional transposed operands: batched, with broadcast batch dims and rank-1
 * operands. f32 runs on {@link Sgemm} (packed and register-blocked; products of a few rows stream B without
 * packing); with {@code RLX_CPU_BLAS=openblas} and OpenBLAS found, f32 products call it instead. Other
 * dtypes run a scalar loop accumulating in double (floats) or long (integers). C is split
 * into up to one part per thread over (batch, row range, column range); each part has its own packing
 * workspace. A {@link Op.FusedMatMul}'s epilogue runs on every tile of C as soon as it is final.
 */
public final class MatMulKernel implements Kernel, RangeTask {
    /** Products below this many multiply-adds run on one thread: waking workers would cost more. */
    private static final long PARALLEL_WORK = 1L << 20;
    /**
     * Pieces of C per thread when several threads share a product, taken as threads finish: with one half each,
     * 1024^3 on 2 threads ran at the slower thread's pace (on this VM one vCPU often runs at two thirds of the
     * other's speed), 0.86x OpenBLAS; with 4 pieces each, 1.01-1.21x (the two alternated in one process).
     */
    private static final int PIECES_PER_THREAD = 4;
    /** A K-split skinny product gives each thread at least this many rows of B. */
    private static final int SPLIT_K_ROWS = 256;
    /** ... and uses at most this many floats of partial results. */
    private static final long SPLIT_K_MAX_FLOATS = 1L << 20;

    private final MemorySegment a;
    private final MemorySegment b;
    private final MemorySegment c;
    private final DType dtype;
    private final int m;
    private final int k;
    private final int n;
    private final long aRs, aCs, bRs, bCs; // element strides of the logical A [m,k] and B [k,n]
    private final Sgemm.Mat[] aMats;      // per batch: the logical A [m,k] and B [k,n], made once
    private final Sgemm.Mat[] bMats;
    private final int rowPieces;
    private final int colPieces;
    private final int units;
    private final int parts;
    private final Parallel parallel;
    private final Sgemm.Workspace[] workspaces; // per part, f32 only
    private final Hook[] hooks;                 // per part, epilogue only
    private final OpenBlas blas;                // non-null when RLX_CPU_BLAS=openblas runs f32 products
    private final MemorySegment[][] blasArgs;   // per batch: A, B, C starting at their first element
    private final Path path;
    private final boolean transA;
    private final boolean transB;
    private final int lda;
    private final int ldb;
    /**
     * A one-batch skinny product (LLM decode's GEMV) on several threads splits K instead of C's columns: each
     * block of K streams a contiguous block of B's rows (split columns would have every thread read short
     * strided pieces of each row, which the prefetchers follow badly) into its own partial C, the blocks taken by
     * the threads as they finish; a second pass sums the partials and runs the epilogue.
     */
    private final boolean splitK;
    private final MemorySegment partials;   // one partial C of m x n floats per block of K, splitK only
    private boolean reducing;               // splitK: which pass range() runs
    private final WorkCursor cursor = new WorkCursor(); // pieces of C, taken by the parts as they finish
    /**
     * A weight B (a param written only through the runtime, or a constant) packed whole, once, instead of per
     * call: MiniLM spent an eighth of its time packing its weights again on every run. The packed copy is the
     * weight's, shared with every graph that packs it the same way (a model at several shapes, on several
     * threads), and re-packed on the first run after the weight is written; null when B may change between runs
     * or the budget for weight copies is spent.
     */
    private final WeightCopies.Copy packedB;
    private final MemorySegment packedMemory;     // packedB's memory
    private final Consumer<MemorySegment> packB; // fills packedB from B, with this kernel's workspace

    private MatMulKernel(Node node, LowerContext ctx, boolean transA, boolean transB) {
        this.transA = transA;
        this.transB = transB;
        Buf ab = ctx.in(node, 0);
        Buf bb = ctx.in(node, 1);
        Buf cb = ctx.out(node, 0);
        this.a = ab.seg();
        this.b = bb.seg();
        this.c = cb.seg();
        this.dtype = cb.dtype();
        Shape as = ab.shape();
        Shape bs = bb.shape();
        int[] ad = as.rank() == 1 ? new int[] {1, as.dim(0)} : as.dims();
        int[] bd = bs.rank() == 1 ? new int[] {bs.dim(0), 1} : bs.dims();
        ad = foldBatchIntoRows(ad, bd, transA);
        int ar = ad[ad.length - 2];
        int ac = ad[ad.length - 1];
        int br = bd[bd.length - 2];
        int bc = bd[bd.length - 1];
        // the stored matrices are [ar, ac] and [br, bc], row-major; the logical ones may be their transposes
        this.m = transA ? ac : ar;
        this.k = transA ? ar : ac;
        this.n = transB ? br : bc;
        this.aRs = transA ? 1 : ac;
        this.aCs = transA ? ac : 1;
        this.bRs = transB ? 1 : bc;
        this.bCs = transB ? bc : 1;
        long[][] offsets = batchOffsets(Arrays.copyOf(ad, ad.length - 2), Arrays.copyOf(bd, bd.length - 2),
                (long) ar * ac, (long) br * bc);
        this.aMats = new Sgemm.Mat[offsets[0].length];
        this.bMats = new Sgemm.Mat[offsets[0].length];
        for (int i = 0; i < aMats.length; i++) {
            aMats[i] = new Sgemm.Mat(a, offsets[0][i], aRs, aCs);
            bMats[i] = new Sgemm.Mat(b, offsets[1][i], bRs, bCs);
        }
        this.parallel = ctx.parallel();
        this.lda = ac;
        this.ldb = bc;
        OpenBlas native_ = dtype == DType.F32 && OpenBlas.requested() ? OpenBlas.usable().orElse(null) : null;
        this.blas = native_;
        this.blasArgs = new MemorySegment[aMats.length][];
        if (native_ != null) {
            native_.setThreads(ctx.parallel().threads());
            for (int i = 0; i < aMats.length; i++) {
                blasArgs[i] = new MemorySegment[] {a.asSlice(offsets[0][i] * 4), b.asSlice(offsets[1][i] * 4),
                        c.asSlice((long) i * m * n * 4)};
            }
        }

        int threads = parallel.threads();
        long work = (long) aMats.length * m * n * Math.max(1, k);
        int want = work < PARALLEL_WORK ? 1 : threads;
        // several pieces per thread, taken as threads finish (see WorkCursor); one piece on one thread
        int pieces = want == 1 ? 1 : want * PIECES_PER_THREAD;
        int perBatch = Math.max(1, (pieces + aMats.length - 1) / aMats.length);
        boolean f32 = dtype == DType.F32;
        int colUnit = f32 ? Sgemm.NR : 1;
        int rowUnit = f32 ? Sgemm.MR : 1;
        this.splitK = f32 && native_ == null && m <= Sgemm.SKINNY_ROWS && bCs == 1 && aMats.length == 1 && want > 1
                && k >= SPLIT_K_ROWS * want && (long) m * n * want <= SPLIT_K_MAX_FLOATS;
        this.colPieces = splitK ? 1 : Math.max(1, Math.min(perBatch, (n + colUnit - 1) / colUnit));
        this.rowPieces = splitK ? 1
                : Math.max(1, Math.min((perBatch + colPieces - 1) / colPieces, (m + rowUnit - 1) / rowUnit));
        // split K: blocks of at least SPLIT_K_ROWS rows, several per thread when K and the partials' size allow
        this.units = m == 0 || n == 0 ? 0
                : splitK ? (int) Math.max(want, Math.min(Math.min(k / SPLIT_K_ROWS, want * WorkCursor.CHUNKS_PER_PART),
                        SPLIT_K_MAX_FLOATS / ((long) m * n)))
                : aMats.length * rowPieces * colPieces;
        this.parts = Math.max(1, Math.min(want, units));
        this.partials = splitK ? ctx.workspace((long) m * n * units * 4) : null; // each partial is written before it is summed
        this.workspaces = new Sgemm.Workspace[parts];
        this.hooks = new Hook[parts];
        if (!f32) {
            this.path = Path.GENERIC;
        } else if (m <= Sgemm.SKINNY_ROWS && bCs == 1) {
            this.path = Path.SKINNY;
        } else if (m <= Sgemm.SKINNY_ROWS && aCs == 1) {
            this.path = Path.DOTS;
        } else {
            this.path = Path.PACKED;
        }
        if (path == Path.PACKED) {
            int cols = (n + colPieces - 1) / colPieces + Sgemm.NR;
            for (int p = 0; p < parts; p++) {
                workspaces[p] = Sgemm.Workspace.of(ctx.workspace(Sgemm.Workspace.bytes(cols)), cols);
            }
        }
        WeightCopies copies = path == Path.PACKED && native_ == null && oneB(offsets[1]) && k > 0
                ? ctx.weightCopies(node.inputs().get(1)) : null;
        Sgemm.Mat b0 = bMats.length == 0 ? null : bMats[0];
        // the key fixes what the packed bytes depend on besides B's: the packing and the view of B it reads
        this.packedB = copies == null || b0 == null ? null : copies.copy(String.format(Locale.ROOT,
                "sgemm.packWhole nr=%d k=%d n=%d at=%d rs=%d cs=%d", Sgemm.NR, k, n, b0.offset(), b0.rowStride(),
                b0.colStride()), 4 * Sgemm.packedWholeFloats(k, n));
        this.packedMemory = packedB == null ? null : packedB.memory();
        this.packB = packedB == null ? null : dst -> Sgemm.packWhole(b0, k, n, dst, workspaces[0].tile());
    }

    /** Whether every batch reads the same B (a weight broadcast over A's batch). */
    private static boolean oneB(long[] bOffsets) {
        for (long o : bOffsets) {
            if (o != bOffsets[0]) {
                return false;
            }
        }
        return true;
    }

    public static Kernel of(Node node, LowerContext ctx) {
        Op.MatMul op = (Op.MatMul) node.op();
        return new MatMulKernel(node, ctx, op.transA(), op.transB());
    }

    /** A matmul with an element-wise epilogue ({@link Op.FusedMatMul}); f32 only. */
    public static Kernel fused(Node node, LowerContext ctx) {
        Op.FusedMatMul op = (Op.FusedMatMul) node.op();
        Buf out = ctx.out(node, 0);
        if (out.dtype() != DType.F32) {
            throw new CompileException("cpu: fused matmul epilogues are f32 only; node " + node.describe() + " is "
                    + out.shape());
        }
        if (node.inputs().get(0).rank() < 2 || node.inputs().get(1).rank() < 2) {
            throw new CompileException("cpu: fused matmul needs matrix operands (rank >= 2); node " + node.describe());
        }
        MatMulKernel mm = new MatMulKernel(node, ctx, op.transA(), op.transB());
        int extras = node.inputs().size() - 2;
        int[] outDims = out.shape().dims();
        int[] rowDims = Arrays.copyOf(outDims, outDims.length - 1);
        MemorySegment[] segs = new MemorySegment[1 + extras];
        long[][] rowStrides = new long[1 + extras][];
        long[] strides = new long[1 + extras];
        segs[0] = out.seg();
        rowStrides[0] = Arrays.copyOf(out.shape().strides(), rowDims.length);
        strides[0] = 1;
        for (int e = 0; e < extras; e++) {
            Buf x = ctx.in(node, 2 + e);
            long[] bs = Walk.broadcast(x.shape(), outDims);
            segs[1 + e] = x.seg();
            rowStrides[1 + e] = Arrays.copyOf(bs, rowDims.length);
            strides[1 + e] = bs[outDims.length - 1];
        }
        ProgramEval eval = new ProgramEval(op.epilogue(), segs,
                ctx.scratch(ProgramEval.scratchBytes(op.epilogue(), mm.parts)), mm.parts);
        OffsetMap rows = OffsetMap.of(rowDims, rowStrides);
        for (int p = 0; p < mm.parts; p++) {
            mm.hooks[p] = new Hook(mm, eval, rows, strides, p);
        }
        return mm;
    }

    /**
     * A's batch over one B that every batch shares ({@code x [B, S, K] . W [K, N]}, a weight) as one product of
     * {@code B * S} rows: A's batches lie one after another, as do C's, so {@code [B, S, K]} is {@code [B*S, K]}.
     * As a batch of short products each took the few-row path and streamed all of B from memory once per batch
     * item (MiniLM on a Spark batch of 32 texts of 8 tokens: 131 GFLOP/s in the FFN, against 229 as one
     * 256-row product). The epilogue's rows are numbered across batches, so they are the same rows.
     */
    private static int[] foldBatchIntoRows(int[] ad, int[] bd, boolean transA) {
        if (transA || bd.length != 2 || ad.length <= 2) {
            return ad;
        }
        long rows = 1;
        for (int i = 0; i < ad.length - 1; i++) {
            rows *= ad[i];
        }
        return rows > Integer.MAX_VALUE ? ad : new int[] {(int) rows, ad[ad.length - 1]};
    }

    /** Element offsets of each broadcast batch's A and B (row-major over the broadcast batch dims). */
    private static long[][] batchOffsets(int[] aDims, int[] bDims, long aMat, long bMat) {
        int rank = Math.max(aDims.length, bDims.length);
        int[] batch = new int[rank];
        for (int i = 0; i < rank; i++) {
            batch[i] = Math.max(fromEnd(aDims, rank - i), fromEnd(bDims, rank - i));
        }
        long count = 1;
        for (int d : batch) {
            count *= d;
        }
        long[] ao = new long[(int) count];
        long[] bo = new long[(int) count];
        for (int bi = 0; bi < count; bi++) {
            long rem = bi;
            long aStride = aMat;
            long bStride = bMat;
            for (int d = rank - 1; d >= 0; d--) {
                int idx = (int) (rem % batch[d]);
                rem /= batch[d];
                int ax = fromEnd(aDims, rank - d);
                int bx = fromEnd(bDims, rank - d);
                ao[bi] += ax != 1 ? idx * aStride : 0;
                bo[bi] += bx != 1 ? idx * bStride : 0;
                aStride *= ax;
                bStride *= bx;
            }
        }
        return new long[][] {ao, bo};
    }

    /** The {@code fromEnd}-th dim counted from the end (1 = last), or 1 past the front. */
    private static int fromEnd(int[] dims, int fromEnd) {
        int i = dims.length - fromEnd;
        return i >= 0 ? dims[i] : 1;
    }

    @Override
    public void run() {
        if (units == 0) {
            return;
        }
        if (blas != null) {
            runNative();
            return;
        }
        if (packedB != null) {
            packedB.refresh(packB);
        }
        cursor.reset(units, parts);
        if (splitK) {
            reducing = false;
            parallel.parallelFor(parts, 1, this);
            reducing = true;
        }
        parallel.parallelFor(parts, 1, this);
    }

    /** One OpenBLAS call per batch (OpenBLAS threads itself), then the epilogue over each result. */
    private void runNative() {
        for (int i = 0; i < blasArgs.length; i++) {
            MemorySegment[] s = blasArgs[i];
            if (m == 1 && !transA) {
                // y = x B is a GEMV on B's transpose; it is OpenBLAS's bandwidth-bound path
                blas.sgemv(!transB, transB ? n : k, transB ? k : n, s[1], ldb, s[0], s[2]);
            } else {
                blas.sgemm(transA, transB, m, n, k, s[0], lda, s[1], ldb, s[2], n);
            }
            if (hooks[0] != null) {
                hooks[0].batch = i;
                hooks[0].tile(0, m, 0, n);
            }
        }
    }

    @Override
    public void range(int from, int to) {
        if (splitK) {
            for (int part = from; part < to; part++) {
                if (reducing) {
                    sumPartials(split(n, parts, part, Sgemm.F.length()), split(n, parts, part + 1, Sgemm.F.length()), part);
                } else {
                    // blocks of K rows taken as parts finish, each into its own partial C: summed in block
                    // order, the result does not depend on which thread took which block
                    for (int begin = cursor.take(); begin >= 0; begin = cursor.take()) {
                        for (int u = begin, end = cursor.end(begin); u < end; u++) {
                            Sgemm.skinny(aMats[0], bMats[0], partials, (long) u * m * n, n, 0, m, 0, n,
                                    split(k, units, u, 1), split(k, units, u + 1, 1));
                        }
                    }
                }
            }
            return;
        }
        for (int part = from; part < to; part++) {
            for (int begin = cursor.take(); begin >= 0; begin = cursor.take()) {
                for (int u = begin, end = cursor.end(begin); u < end; u++) {
                    int col = u % colPieces;
                    int rest = u / colPieces;
                    int row = rest % rowPieces;
                    int batch = rest / rowPieces;
                    int r0 = split(m, rowPieces, row, dtype == DType.F32 ? Sgemm.MR : 1);
                    int r1 = split(m, rowPieces, row + 1, dtype == DType.F32 ? Sgemm.MR : 1);
                    int c0 = split(n, colPieces, col, dtype == DType.F32 ? Sgemm.NR : 1);
                    int c1 = split(n, colPieces, col + 1, dtype == DType.F32 ? Sgemm.NR : 1);
                    piece(batch, r0, r1, c0, c1, part);
                }
            }
        }
    }

    /** Sums the partials, in block order, into C's columns {@code [c0, c1)}, then runs the epilogue on them. */
    private void sumPartials(int c0, int c1, int part) {
        int cols = c1 - c0;
        if (cols <= 0) {
            return;
        }
        int vn = Sgemm.F.loopBound(cols);
        for (int i = 0; i < m; i++) {
            long ci = (long) i * n + c0;
            MemorySegment.copy(partials, ci * 4, c, ci * 4, cols * 4L);
            for (int q = 1; q < units; q++) {
                Sgemm.axpy(1f, partials, (long) q * m * n + ci, c, ci, vn, cols);
            }
        }
        Hook hook = hooks[part];
        if (hook != null) {
            hook.batch = 0;
            hook.tile(0, m, c0, cols);
        }
    }

    /** Boundary {@code i} of {@code pieces} near-equal pieces of {@code total}, on multiples of {@code unit}. */
    private static int split(int total, int pieces, int i, int unit) {
        if (i >= pieces) {
            return total;
        }
        long blocks = (total + unit - 1) / unit;
        return (int) Math.min(total, blocks * i / pieces * unit);
    }

    private void piece(int batch, int r0, int r1, int c0, int c1, int part) {
        long cOff = (long) batch * m * n;
        Sgemm.Mat am = aMats[batch];
        Sgemm.Mat bm = bMats[batch];
        Hook hook = hooks[part];
        switch (path) {
            case GENERIC -> generic(am, bm, cOff, r0, r1, c0, c1);
            case SKINNY -> Sgemm.skinny(am, bm, c, cOff, n, r0, r1, c0, c1, 0, k);
            case DOTS -> {
                for (int i = r0; i < r1; i++) {
                    Sgemm.dots(am, i, bm, c, cOff + (long) i * n, c0, c1, k);
                }
            }
            case PACKED -> {
                if (hook != null) {
                    hook.batch = batch;
                }
                if (packedMemory != null) {
                    Sgemm.multiplyPacked(am, packedMemory, k, c, cOff, n, r0, r1, c0, c1, workspaces[part], hook);
                } else {
                    Sgemm.multiply(am, bm, c, cOff, n, r0, r1, c0, c1, 0, k, workspaces[part], hook);
                }
                return;
            }
        }
        if (hook != null) {
            hook.batch = batch;
            hook.tile(r0, r1 - r0, c0, c1 - c0);
        }
    }

    /**
     * How each piece is computed. A few rows stream B row by row when B's rows are contiguous ({@code SKINNY}),
     * or take dot products when both operands run along K ({@code DOTS}); everything else is packed.
     */
    private enum Path { GENERIC, SKINNY, DOTS, PACKED }

    /** Any dtype: accumulate in double (floats) or long (integers), round once. */
    private void generic(Sgemm.Mat am, Sgemm.Mat bm, long cOff, int r0, int r1, int c0, int c1) {
        boolean integral = Elements.integral(dtype);
        for (int i = r0; i < r1; i++) {
            for (int j = c0; j < c1; j++) {
                double dacc = 0;
                long lacc = 0;
                for (int p = 0; p < k; p++) {
                    long ai = am.offset() + i * aRs + p * aCs;
                    long bi = bm.offset() + p * bRs + j * bCs;
                    if (integral) {
                        lacc += Elements.getLong(a, ai, dtype) * Elements.getLong(b, bi, dtype);
                    } else {
                        dacc += Elements.getDouble(a, ai, dtype) * Elements.getDouble(b, bi, dtype);
                    }
                }
                long ci = cOff + (long) i * n + j;
                if (integral) {
                    Elements.setLong(c, ci, dtype, lacc);
                } else {
                    Elements.setDouble(c, ci, dtype, dacc);
                }
            }
        }
    }

    /** Runs the epilogue on a finished tile of C; one per part, so its state is confined to one thread. */
    private static final class Hook implements Sgemm.TileHook {
        private final MatMulKernel mm;
        private final ProgramEval eval;
        private final OffsetMap rows;
        private final long[] strides;
        private final long[] offs;
        private final int part;
        int batch;

        Hook(MatMulKernel mm, ProgramEval eval, OffsetMap rows, long[] strides, int part) {
            this.mm = mm;
            this.eval = eval;
            this.rows = rows;
            this.strides = strides;
            this.offs = new long[strides.length];
            this.part = part;
        }

        @Override
        public void tile(int row0, int count, int col0, int cols) {
            long base = (long) batch * mm.m;
            for (int r = 0; r < count; r++) {
                int outRow = (int) (base + row0 + r);
                long cRow = (long) outRow * mm.n + col0;
                offs[0] = cRow;
                for (int x = 1; x < offs.length; x++) {
                    offs[x] = rows.offset(x, outRow) + col0 * strides[x];
                }
                for (int j = 0; j < cols; j += ProgramEval.PIECE) {
                    int len = Math.min(ProgramEval.PIECE, cols - j);
                    if (j > 0) {
                        offs[0] = cRow + j;
                        for (int x = 1; x < offs.length; x++) {
                            offs[x] = rows.offset(x, outRow) + (col0 + j) * strides[x];
                        }
                    }
                    eval.eval(offs, strides, mm.c, cRow + j, len, part);
                }
            }
        }
    }
}
