package dev.rlx.cpu.kernels;

import dev.rlx.ir.DType;
import dev.rlx.ir.Elements;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import java.lang.foreign.MemorySegment;

/**
 * An attention op's optional mask operand, broadcast over {@code [B, numHeads, Sq, Sk]}: a BOOL mask keeps a
 * key where it is true, any other dtype is added to the score. {@link #NONE} when the op has no mask.
 *
 * @param seg     the mask's data (null for NONE)
 * @param keep    BOOL (keep where true) rather than additive
 * @param type    the mask's dtype (null for NONE)
 * @param strides element strides over {@code [B, numHeads, Sq, Sk]}, 0 along broadcast dims
 */
record AttentionMask(MemorySegment seg, boolean keep, DType type, long[] strides) {
    static final AttentionMask NONE = new AttentionMask(null, false, null, new long[4]);

    /** The mask of attention node {@code n} (its fourth input), or {@link #NONE}. */
    static AttentionMask of(Node n, LowerContext ctx) {
        if (n.inputs().size() < 4) {
            return NONE;
        }
        Op.Attention a = (Op.Attention) n.op();
        HeadView q = HeadView.of(ctx.in(n, 0).shape(), a.layout(), a.headDim());
        int sk = HeadView.of(ctx.in(n, 1).shape(), a.layout(), a.headDim()).seq();
        Buf m = ctx.in(n, 3);
        return new AttentionMask(m.seg(), m.dtype() == DType.BOOL, m.dtype(),
                Walk.broadcast(m.shape(), new int[] {q.batch(), a.numHeads(), q.seq(), sk}));
    }

    boolean present() {
        return seg != null;
    }

    /** Offset of (batch b, head h, query q), to which {@code key * strides[3]} adds the key. */
    long row(int b, int h, int q) {
        return b * strides[0] + h * strides[1] + q * strides[2];
    }

    /** Whether a keep-mask drops the key at {@code at}. */
    boolean drops(long at) {
        return keep && !Elements.getBool(seg, at);
    }

    /** The additive mask's value at {@code at} (0 for a keep-mask). */
    double added(long at) {
        return keep ? 0 : Elements.getDouble(seg, at, type);
    }
}
