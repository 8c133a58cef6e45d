package dev.rlx.cpu.kernels;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.runtime.CompileException;
import java.lang.foreign.MemorySegment;

/**
 * A fused chain of f32 element-wise ops ({@link Op.Fused}): one pass over memory, intermediates in L1
 * (see {@link ProgramEval}). Work is split into one part per thread, each with its own scratch and
 * offset arrays, taking pieces of {@link ProgramEval#PIECE} elements in turn.
 */
final class FusedKernel implements Kernel, RangeTask {
    private final ProgramEval eval;
    private final Walk walk;        // operand 0 = output, 1.. = program inputs
    private final MemorySegment out;
    private final int inputs;
    private final int piecesPerRow;
    private final int pieces;
    private final long[][] offs;    // per part: input offsets of the current piece
    private final long[] strides;   // per input: stride along a row
    private final Parallel parallel;
    private int parts;

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
        this.piecesPerRow = Math.max(1, (walk.inner() + ProgramEval.PIECE - 1) / ProgramEval.PIECE);
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
        parallel.parallelFor(parts, 1, this);
    }

    @Override
    public void range(int from, int to) {
        for (int part = from; part < to; part++) {
            long[] o = offs[part];
            int begin = (int) ((long) pieces * part / parts);
            int end = (int) ((long) pieces * (part + 1) / parts);
            for (int u = begin; u < end; u++) {
                int row = u / piecesPerRow;
                int start = (u % piecesPerRow) * ProgramEval.PIECE;
                int len = Math.min(ProgramEval.PIECE, walk.inner() - start);
                for (int k = 0; k < inputs; k++) {
                    o[k] = walk.rowOffset(k + 1, row) + start * strides[k];
                }
                eval.eval(o, strides, out, walk.rowOffset(0, row) + start, len, part);
            }
        }
    }
}
