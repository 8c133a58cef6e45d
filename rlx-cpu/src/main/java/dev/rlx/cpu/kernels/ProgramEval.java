package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.UnaryKind;
import java.lang.foreign.MemorySegment;

/**
 * Evaluates an f32 {@link ElementwiseProgram} over one piece of a row at a time. Each step runs as a vector
 * loop over the whole piece into a small scratch buffer that stays in L1 (the per-op loops of
 * {@link UnaryF32Loops} and {@link BinaryF32Loops}, so nothing is boxed); the last step writes the
 * output. Inputs are read where they lie, with stride 1 (contiguous) or 0 (broadcast scalar); any other
 * stride is read element by element. A comparison's mask lives in its scratch piece as 1s and 0s, read only by
 * selects.
 *
 * <p>Reads and writes of one element happen at the same index, so the output may alias an input of the same
 * shape (in-place execution).
 */
final class ProgramEval {
    /** Elements per piece: a scratch buffer per step of this many floats stays in L1. */
    static final int PIECE = 256;

    private final int inputs;
    private final UnaryKind[] unary;   // per step, null for binary steps
    private final BinaryKind[] binary; // per step, null for unary steps
    private final CompareKind[] compare; // per step, null unless a comparison (a mask of 1s and 0s in scratch)
    private final boolean[] select;     // per step: a ? b : c with a a mask
    private final int[] a;
    private final int[] b;
    private final int[] c;
    private final MemorySegment[] ins;
    private final MemorySegment scratch;
    private final long slotFloats; // scratch floats per concurrent caller

    /**
     * @param ins      the operand segments (index = program input)
     * @param scratch  scratch memory for {@code slots} concurrent callers
     */
    ProgramEval(ElementwiseProgram p, MemorySegment[] ins, MemorySegment scratch, int slots) {
        this.inputs = p.inputs();
        int n = p.steps().size();
        this.unary = new UnaryKind[n];
        this.binary = new BinaryKind[n];
        this.compare = new CompareKind[n];
        this.select = new boolean[n];
        this.a = new int[n];
        this.b = new int[n];
        this.c = new int[n];
        for (int i = 0; i < n; i++) {
            ElementwiseProgram.Step s = p.steps().get(i);
            unary[i] = s.unary();
            binary[i] = s.binary();
            compare[i] = s.compare();
            select[i] = s.isSelect();
            a[i] = s.a();
            b[i] = s.b();
            c[i] = s.c();
        }
        this.ins = ins;
        this.scratch = scratch;
        this.slotFloats = (long) n * PIECE;
        if (scratch.byteSize() < slotFloats * 4 * slots) {
            throw new IllegalArgumentException("scratch too small for " + slots + " slots");
        }
    }

    /** Scratch bytes {@code slots} concurrent callers need for program {@code p}. */
    static long scratchBytes(ElementwiseProgram p, int slots) {
        return (long) p.steps().size() * PIECE * 4 * slots;
    }

    /**
     * Evaluates {@code len <= PIECE} elements: input {@code k} element {@code j} is at
     * {@code inOff[k] + j * inStride[k]}; the result goes to {@code out[outOff + j]}. {@code slot} selects
     * the caller's scratch.
     */
    void eval(long[] inOff, long[] inStride, MemorySegment out, long outOff, int len, int slot) {
        long base = slot * slotFloats;
        int last = unary.length - 1;
        for (int i = 0; i <= last; i++) {
            MemorySegment dst = i == last ? out : scratch;
            long dOff = i == last ? outOff : base + (long) i * PIECE;
            int va = a[i];
            MemorySegment sa = va < inputs ? ins[va] : scratch;
            long aOff = va < inputs ? inOff[va] : base + (long) (va - inputs) * PIECE;
            long aStr = va < inputs ? inStride[va] : 1;
            if (unary[i] != null) {
                unaryPiece(unary[i], sa, aOff, aStr, dst, dOff, len);
                continue;
            }
            int vb = b[i];
            MemorySegment sb = vb < inputs ? ins[vb] : scratch;
            long bOff = vb < inputs ? inOff[vb] : base + (long) (vb - inputs) * PIECE;
            long bStr = vb < inputs ? inStride[vb] : 1;
            if (binary[i] != null) {
                binaryPiece(binary[i], sa, aOff, aStr, sb, bOff, bStr, dst, dOff, len);
            } else if (compare[i] != null) {
                comparePiece(compare[i], sa, aOff, aStr, sb, bOff, bStr, dst, dOff, len);
            } else { // select: the mask (operand a) is always a step's, in scratch with stride 1
                int vc = c[i];
                MemorySegment sc = vc < inputs ? ins[vc] : scratch;
                long cOff = vc < inputs ? inOff[vc] : base + (long) (vc - inputs) * PIECE;
                long cStr = vc < inputs ? inStride[vc] : 1;
                for (int j = 0; j < len; j++) {
                    float v = sa.getAtIndex(JAVA_FLOAT, aOff + j) != 0 ? sb.getAtIndex(JAVA_FLOAT, bOff + j * bStr)
                            : sc.getAtIndex(JAVA_FLOAT, cOff + j * cStr);
                    dst.setAtIndex(JAVA_FLOAT, dOff + j, v);
                }
            }
        }
    }

    /** {@code y[j] = k(x[j], z[j]) ? 1 : 0}: a mask, as Float's comparisons (false with NaN, but NE). */
    private static void comparePiece(CompareKind k, MemorySegment x, long xo, long xs, MemorySegment z, long zo, long zs,
                                     MemorySegment y, long yo, int len) {
        for (int j = 0; j < len; j++) {
            float p = x.getAtIndex(JAVA_FLOAT, xo + j * xs);
            float q = z.getAtIndex(JAVA_FLOAT, zo + j * zs);
            boolean r = switch (k) {
                case EQ -> p == q;
                case NE -> p != q;
                case LT -> p < q;
                case LE -> p <= q;
                case GT -> p > q;
                case GE -> p >= q;
            };
            y.setAtIndex(JAVA_FLOAT, yo + j, r ? 1f : 0f);
        }
    }

    private static void unaryPiece(UnaryKind k, MemorySegment x, long xo, long xs, MemorySegment y, long yo, int len) {
        if (xs == 0) {
            float v = (float) ScalarMath.unary(k, x.getAtIndex(JAVA_FLOAT, xo));
            for (int j = 0; j < len; j++) {
                y.setAtIndex(JAVA_FLOAT, yo + j, v);
            }
            return;
        }
        ElementwiseKernels.unaryF32(k, x, xo, xs, y, yo, len);
    }

    private static void binaryPiece(BinaryKind k, MemorySegment x, long xo, long xs, MemorySegment z, long zo, long zs,
                                    MemorySegment y, long yo, int len) {
        if (xs == 0 && zs == 0) {
            float v = ElementwiseKernels.binaryScalar(k, x.getAtIndex(JAVA_FLOAT, xo), z.getAtIndex(JAVA_FLOAT, zo));
            for (int j = 0; j < len; j++) {
                y.setAtIndex(JAVA_FLOAT, yo + j, v);
            }
            return;
        }
        ElementwiseKernels.binaryF32(k, x, xo, xs, z, zo, zs, y, yo, len);
    }
}
