package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code numpy.matmul}: batched, with broadcast batch dims and rank-1 operands. f32 uses a register-blocked
 * Vector API loop (4 rows x one vector of columns, B rows streamed); other dtypes a scalar loop
 * accumulating in double (floats) or long (integers). Work is split over (batch, row block, column block).
 */
public final class MatMulKernel implements Kernel, RangeTask {
    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int ROWS = 4;
    private static final int COL_BLOCK = 512;

    private final MemorySegment a;
    private final MemorySegment b;
    private final MemorySegment c;
    private final DType dtype;
    private final int m;
    private final int k;
    private final int n;
    private final long[] aBatch; // element offset of each batch's A
    private final long[] bBatch;
    private final int rowBlocks;
    private final int colBlocks;
    private final Parallel parallel;
    private final int maxParts;
    private int parts;
    // Optional element-wise epilogue applied to each finished block while it is in cache (FusedMatMul).
    private Epilogue epilogue;

    /** The epilogue of a FusedMatMul: program input 0 is the block of C, inputs 1.. broadcast extras. */
    private record Epilogue(ProgramEval eval, OffsetMap rows, long[] strides, long[][] offs) {}

    private MatMulKernel(Buf a, Buf b, Buf c, int m, int k, int n, long[] aBatch, long[] bBatch, Parallel parallel) {
        this.a = a.seg();
        this.b = b.seg();
        this.c = c.seg();
        this.dtype = c.dtype();
        this.m = m;
        this.k = k;
        this.n = n;
        this.aBatch = aBatch;
        this.bBatch = bBatch;
        this.rowBlocks = (m + ROWS - 1) / ROWS;
        this.colBlocks = Math.max(1, (n + COL_BLOCK - 1) / COL_BLOCK);
        this.parallel = parallel;
        this.maxParts = parallel.threads();
    }

    /** A matmul with an element-wise epilogue ({@link dev.rlx.ir.Op.FusedMatMul}); f32 only. */
    public static Kernel fused(Node node, LowerContext ctx) {
        dev.rlx.ir.Op.FusedMatMul op = (dev.rlx.ir.Op.FusedMatMul) node.op();
        Buf c = ctx.out(node, 0);
        if (c.dtype() != DType.F32) {
            throw new dev.rlx.runtime.CompileException("cpu: fused matmul epilogues are f32 only; node "
                    + node.describe() + " is " + c.shape());
        }
        if (node.inputs().get(0).rank() < 2 || node.inputs().get(1).rank() < 2) {
            throw new dev.rlx.runtime.CompileException("cpu: fused matmul needs matrix operands (rank >= 2); node "
                    + node.describe());
        }
        MatMulKernel mm = (MatMulKernel) of(node, ctx);
        int extras = node.inputs().size() - 2;
        int[] outDims = c.shape().dims();
        int[] rowDims = java.util.Arrays.copyOf(outDims, Math.max(0, outDims.length - 1));
        MemorySegment[] segs = new MemorySegment[1 + extras];
        segs[0] = c.seg();
        long[][] rowStrides = new long[1 + extras][];
        long[] strides = new long[1 + extras];
        rowStrides[0] = java.util.Arrays.copyOf(c.shape().strides(), rowDims.length);
        strides[0] = 1;
        for (int e = 0; e < extras; e++) {
            Buf x = ctx.in(node, 2 + e);
            long[] bs = Walk.broadcast(x.shape(), outDims);
            segs[1 + e] = x.seg();
            rowStrides[1 + e] = java.util.Arrays.copyOf(bs, rowDims.length);
            strides[1 + e] = outDims.length == 0 ? 0 : bs[outDims.length - 1];
        }
        int slots = ctx.parallel().threads();
        ProgramEval eval = new ProgramEval(op.epilogue(), segs, ctx.scratch(ProgramEval.scratchBytes(op.epilogue(), slots)),
                slots);
        mm.epilogue = new Epilogue(eval, OffsetMap.of(rowDims, rowStrides), strides, new long[slots][1 + extras]);
        return mm;
    }

    public static Kernel of(Node node, LowerContext ctx) {
        Buf a = ctx.in(node, 0);
        Buf b = ctx.in(node, 1);
        Buf c = ctx.out(node, 0);
        Shape as = a.shape();
        Shape bs = b.shape();
        int[] ad = as.rank() == 1 ? new int[] {1, as.dim(0)} : as.dims();
        int[] bd = bs.rank() == 1 ? new int[] {bs.dim(0), 1} : bs.dims();
        int m = ad[ad.length - 2];
        int k = ad[ad.length - 1];
        int n = bd[bd.length - 1];
        int[] aBatchDims = java.util.Arrays.copyOf(ad, ad.length - 2);
        int[] bBatchDims = java.util.Arrays.copyOf(bd, bd.length - 2);
        int rank = Math.max(aBatchDims.length, bBatchDims.length);
        int[] batch = new int[rank];
        for (int i = 0; i < rank; i++) {
            int x = dimFromEnd(aBatchDims, rank - i);
            int y = dimFromEnd(bBatchDims, rank - i);
            batch[i] = Math.max(x, y);
        }
        long batches = 1;
        for (int d : batch) {
            batches *= d;
        }
        long[] aOff = new long[(int) batches];
        long[] bOff = new long[(int) batches];
        long aMat = (long) m * k;
        long bMat = (long) k * n;
        for (int bi = 0; bi < batches; bi++) {
            long rem = bi;
            long ao = 0;
            long bo = 0;
            long aStride = aMat;
            long bStride = bMat;
            for (int d = rank - 1; d >= 0; d--) {
                int idx = (int) (rem % batch[d]);
                rem /= batch[d];
                int ax = dimFromEnd(aBatchDims, rank - d);
                int bx = dimFromEnd(bBatchDims, rank - d);
                if (ax != 1) {
                    ao += idx * aStride;
                }
                if (bx != 1) {
                    bo += idx * bStride;
                }
                aStride *= ax;
                bStride *= bx;
            }
            aOff[bi] = ao;
            bOff[bi] = bo;
        }
        return new MatMulKernel(a, b, c, m, k, n, aOff, bOff, ctx.parallel());
    }

    /** The {@code fromEnd}-th dim counted from the end (1 = last), or 1 past the front. */
    private static int dimFromEnd(int[] dims, int fromEnd) {
        int i = dims.length - fromEnd;
        return i >= 0 ? dims[i] : 1;
    }

    @Override
    public void run() {
        long units = (long) aBatch.length * rowBlocks * colBlocks;
        if (units == 0) {
            return;
        }
        // Aim for a few hundred thousand multiply-adds per part before splitting; each part is one
        // contiguous run of units with its own epilogue scratch.
        long work = (long) ROWS * Math.min(n, COL_BLOCK) * Math.max(1, k);
        long grain = Math.max(1, 262_144 / Math.max(1, work));
        parts = (int) Math.max(1, Math.min(maxParts, units / grain));
        parallel.parallelFor(parts, 1, this);
    }

    @Override
    public void range(int from, int to) {
        long units = (long) aBatch.length * rowBlocks * colBlocks;
        for (int part = from; part < to; part++) {
            int begin = (int) (units * part / parts);
            int end = (int) (units * (part + 1) / parts);
            units(begin, end, part);
        }
    }

    private void units(int from, int to, int part) {
        for (int u = from; u < to; u++) {
            int colBlock = u % colBlocks;
            int rest = u / colBlocks;
            int rowBlock = rest % rowBlocks;
            int batch = rest / rowBlocks;
            int i0 = rowBlock * ROWS;
            int rows = Math.min(ROWS, m - i0);
            int j0 = colBlock * COL_BLOCK;
            int cols = Math.min(COL_BLOCK, n - j0);
            long ao = aBatch[batch] + (long) i0 * k;
            long bo = bBatch[batch] + j0;
            long co = (long) batch * m * n + (long) i0 * n + j0;
            if (dtype == DType.F32) {
                blockF32(ao, bo, co, rows, cols);
            } else {
                blockGeneric(ao, bo, co, rows, cols);
            }
            if (epilogue != null) {
                applyEpilogue(batch * m + i0, rows, j0, cols, co, part);
            }
        }
    }

    /** Runs the epilogue over the block just computed: output rows {@code row0..}, columns {@code j0..}. */
    private void applyEpilogue(int row0, int rows, int j0, int cols, long co, int part) {
        Epilogue e = epilogue;
        long[] o = e.offs()[part];
        for (int r = 0; r < rows; r++) {
            long cRow = co + (long) r * n;
            o[0] = cRow;
            for (int x = 1; x < o.length; x++) {
                o[x] = e.rows().offset(x, row0 + r) + j0 * e.strides()[x];
            }
            e.eval().eval(o, e.strides(), c, cRow, cols, part);
        }
    }

    /** C[rows x cols] = A[rows x K] B[K x cols]: 4 accumulator vectors per column vector, B streamed once. */
    private void blockF32(long ao, long bo, long co, int rows, int cols) {
        int bound = F.loopBound(cols);
        int j = 0;
        if (rows == ROWS) {
            for (; j < bound; j += F.length()) {
                FloatVector c0 = FloatVector.zero(F);
                FloatVector c1 = FloatVector.zero(F);
                FloatVector c2 = FloatVector.zero(F);
                FloatVector c3 = FloatVector.zero(F);
                for (int p = 0; p < k; p++) {
                    FloatVector bv = FloatVector.fromMemorySegment(F, b, (bo + (long) p * n + j) * 4, LE);
                    c0 = bv.fma(FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao + p)), c0);
                    c1 = bv.fma(FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao + k + p)), c1);
                    c2 = bv.fma(FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao + 2L * k + p)), c2);
                    c3 = bv.fma(FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao + 3L * k + p)), c3);
                }
                c0.intoMemorySegment(c, (co + j) * 4, LE);
                c1.intoMemorySegment(c, (co + n + j) * 4, LE);
                c2.intoMemorySegment(c, (co + 2L * n + j) * 4, LE);
                c3.intoMemorySegment(c, (co + 3L * n + j) * 4, LE);
            }
        } else {
            for (; j < bound; j += F.length()) {
                for (int r = 0; r < rows; r++) {
                    FloatVector acc = FloatVector.zero(F);
                    long ar = ao + (long) r * k;
                    for (int p = 0; p < k; p++) {
                        FloatVector bv = FloatVector.fromMemorySegment(F, b, (bo + (long) p * n + j) * 4, LE);
                        acc = bv.fma(FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ar + p)), acc);
                    }
                    acc.intoMemorySegment(c, (co + (long) r * n + j) * 4, LE);
                }
            }
        }
        for (; j < cols; j++) {
            for (int r = 0; r < rows; r++) {
                float acc = 0;
                long ar = ao + (long) r * k;
                for (int p = 0; p < k; p++) {
                    acc = Math.fma(a.getAtIndex(JAVA_FLOAT, ar + p), b.getAtIndex(JAVA_FLOAT, bo + (long) p * n + j), acc);
                }
                c.setAtIndex(JAVA_FLOAT, co + (long) r * n + j, acc);
            }
        }
    }

    private void blockGeneric(long ao, long bo, long co, int rows, int cols) {
        boolean integral = Elements.integral(dtype);
        for (int r = 0; r < rows; r++) {
            for (int j = 0; j < cols; j++) {
                double dacc = 0;
                long lacc = 0;
                for (int p = 0; p < k; p++) {
                    long ai = ao + (long) r * k + p;
                    long bi = bo + (long) p * n + j;
                    if (integral) {
                        lacc += Elements.getL(a, ai, dtype) * Elements.getL(b, bi, dtype);
                    } else {
                        dacc += Elements.getD(a, ai, dtype) * Elements.getD(b, bi, dtype);
                    }
                }
                long ci = co + (long) r * n + j;
                if (integral) {
                    Elements.setL(c, ci, dtype, lacc);
                } else {
                    Elements.setD(c, ci, dtype, dacc);
                }
            }
        }
    }
}
