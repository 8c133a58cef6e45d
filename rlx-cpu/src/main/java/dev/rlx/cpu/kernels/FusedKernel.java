package dev.rlx.cpu.kernels;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.runtime.CompileException;
import java.lang.foreign.MemorySegment;

/**
 * A fused chain of f32 element-wise ops ({@link Op.Fused}): one pass over memory. When every operand is
 * contiguous or a broadcast scalar along a row and every step has a vector form, a generated loop
 * ({@link FusedLoops}) keeps intermediates in registers over chunks of {@link #CHUNK} elements, with
 * {@link ProgramEval} finishing each row's last partial vector; otherwise {@link ProgramEval} runs the program
 * step by step over pieces of {@link ProgramEval#PIECE} elements with intermediates in L1. Work is split into
 * one part per thread, each with its own scratch and offset arrays, taking chunks of units as it finishes.
 */
final class FusedKernel implements Kernel, RangeTask {
    /**
     * Elements per unit of work for the generated loop: long enough that per-unit offsets and the loop's entry
     * cost nothing (4096 -> 16384: x*0.5+1 over 4096x4096 4-12% faster, alternated in one process).
     */
    private static final int CHUNK = 16_384;
    private static final int W = VectorMath.F.length();

    private final ProgramEval eval;
    private final FusedLoop loop;   // null: interpreted
    private final MemorySegment[] ins;
    private final int chunk;
    private final Walk walk;        // operand 0 = output, 1.. = program inputs
    private final MemorySegment out;
    private final int inputs;
    private final int piecesPerRow;
    private final int pieces;
    private final long[][] offs;    // per part: input offsets of the current piece
    private final long[] strides;   // per input: stride along a row
    private final Parallel parallel;
    private int parts;
    private final WorkCursor cursor = new WorkCursor(); // pieces, taken by the parts as they finish

    private FusedKernel(Op.Fused op, Buf out, Buf[] in, LowerContext ctx) {
        int threads = ctx.parallel().threads();
        int[] dims = out.shape().dims();
        long[][] s = new long[in.length + 1][];
        s[0] = Walk.contiguous(out.shape());
        MemorySegment[] segs = new MemorySegment[in.length];
        for (int k = 0; k < in.length; k++) {
            s[k + 1] = Walk.broadcast(in[k].shape(), dims);
            segs[k] = in[k].seg();
        }
        this.walk = Walk.of(dims, s);
        this.out = out.seg();
        this.inputs = in.length;
        this.eval = new ProgramEval(op.program(), segs, ctx.scratch(ProgramEval.scratchBytes(op.program(), threads)),
                threads);
        boolean[] broadcast = new boolean[in.length];
        boolean vectorLayout = true;
        for (int k = 0; k < in.length; k++) {
            long stride = walk.innerStride(k + 1);
            broadcast[k] = stride == 0;
            vectorLayout &= stride == 0 || stride == 1;
        }
        this.loop = vectorLayout ? FusedLoops.of(op.program(), broadcast).orElse(null) : null;
        this.ins = segs;
        this.chunk = loop != null ? CHUNK : ProgramEval.PIECE;
        this.piecesPerRow = Math.max(1, (walk.inner() + chunk - 1) / chunk);
        this.pieces = walk.elements() == 0 ? 0 : walk.rows() * piecesPerRow;
        // padded: parts write their offsets every piece, and unpadded arrays from one allocation share a cache
        // line (two threads at 0.4x of one, from the line bouncing between cores)
        this.offs = new long[threads][in.length + 16];
        this.strides = new long[in.length];
        for (int k = 0; k < in.length; k++) {
            strides[k] = walk.innerStride(k + 1);
        }
        this.parallel = ctx.parallel();
    }

    static Kernel of(Node n, LowerContext ctx) {
        Op.Fused op = (Op.Fused) n.op();
        Buf out = ctx.out(n, 0);
        if (out.dtype() != DType.F32) {
            throw new CompileException("cpu: fused element-wise kernels are f32 only; node " + n.describe() + " is "
                    + out.shape());
        }
        Buf[] in = new Buf[n.inputs().size()];
        for (int i = 0; i < in.length; i++) {
            in[i] = ctx.in(n, i);
        }
        return new FusedKernel(op, out, in, ctx);
    }

    @Override
    public void run() {
        if (pieces == 0) {
            return;
        }
        // Small tensors are not worth waking workers for.
        parts = Math.min(offs.length, Math.max(1, (int) Math.min(pieces, walk.elements() / 16_384)));
        cursor.reset(pieces, parts);
        parallel.parallelFor(parts, 1, this);
    }

    @Override
    public void range(int from, int to) {
        for (int part = from; part < to; part++) {
            long[] o = offs[part];
            for (int begin = cursor.take(); begin >= 0; begin = cursor.take()) {
                piecesOf(begin, cursor.end(begin), o, part);
            }
        }
    }

    /** Pieces {@code [begin, end)} with the part's offsets {@code o} and scratch. */
    private void piecesOf(int begin, int end, long[] o, int part) {
        for (int u = begin; u < end; u++) {
            int row = u / piecesPerRow;
            int start = (u % piecesPerRow) * chunk;
            int len = Math.min(chunk, walk.inner() - start);
            for (int k = 0; k < inputs; k++) {
                o[k] = walk.rowOffset(k + 1, row) + start * strides[k];
            }
            long outOff = walk.rowOffset(0, row) + start;
            int done = 0;
            if (loop != null && len >= W) {
                done = len & -W; // W is a power of two
                loop.run(ins, o, out, outOff, done);
                for (int k = 0; k < inputs; k++) {
                    o[k] += done * strides[k];
                }
            }
            if (done < len) {
                eval.eval(o, strides, out, outOff + done, len - done, part);
            }
        }
    }
}
