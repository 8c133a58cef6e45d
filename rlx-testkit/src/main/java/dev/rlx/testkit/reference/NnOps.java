package dev.rlx.testkit.reference;

import dev.rlx.ir.DType;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.util.List;

/**
 * Attention, rope, convolution and pooling nodes on {@link NnReference}'s float64 loops: operands moved to its
 * canonical layouts ({@code [B, S, H, D]} for heads, NC* for convolutions), results moved back and stored once.
 */
final class NnOps {
    private NnOps() {}

    /** Inputs (q, k, v[, mask]): a BOOL mask keeps scores where true, a float mask is added to them. */
    static RefTensor attention(Op.Attention op, List<RefTensor> in, Shape out) {
        Ref q = canonical(in.get(0), op.layout(), op.headDim());
        Ref k = canonical(in.get(1), op.layout(), op.headDim());
        Ref v = canonical(in.get(2), op.layout(), op.headDim());
        RefTensor mask = in.size() > 3 ? in.get(3) : null;
        Ref y = NnReference.attention(q, k, v, mask == null ? null : mask.asRef(),
                mask != null && mask.dtype() == DType.BOOL, op);
        return fromCanonical(y, op.layout(), out);
    }

    /** Inputs (x, cos, sin); the tables are {@code [S, r/2]} or {@code [B, S, r/2]}. */
    static RefTensor rope(Op.Rope op, List<RefTensor> in, Shape out) {
        Ref x = canonical(in.get(0), op.layout(), op.headDim());
        return fromCanonical(NnReference.rope(x, in.get(1).asRef(), in.get(2).asRef(), op), op.layout(), out);
    }

    static RefTensor conv(Op.Conv op, List<RefTensor> in, Shape out) {
        Ref bias = in.size() > 2 ? in.get(2).asRef() : null;
        return RefTensor.rounded(out, NnReference.conv(in.get(0).asRef(), in.get(1).asRef(), bias, op).data());
    }

    static RefTensor convTranspose(Op.ConvTranspose op, List<RefTensor> in, Shape out) {
        Ref bias = in.size() > 2 ? in.get(2).asRef() : null;
        return RefTensor.rounded(out, NnReference.convTranspose(in.get(0).asRef(), in.get(1).asRef(), bias, op).data());
    }

    static RefTensor pool(Op.Pool op, RefTensor x, Shape out) {
        return RefTensor.rounded(out, NnReference.pool(x.asRef(), op).data());
    }

    /** A head operand as {@code [B, S, H, D]}: rank-3 BSHD has the same element order, BHSD swaps S and H. */
    private static Ref canonical(RefTensor t, HeadLayout layout, int headDim) {
        int[] d = t.shape.dims();
        if (d.length == 3) {
            return new Ref(new int[] {d[0], d[1], d[2] / headDim, headDim}, t.real);
        }
        return layout == HeadLayout.BHSD ? NnReference.swapSeqHeads(t.asRef()) : t.asRef();
    }

    private static RefTensor fromCanonical(Ref y, HeadLayout layout, Shape out) {
        Ref laid = layout == HeadLayout.BHSD && out.rank() == 4 ? NnReference.swapSeqHeads(y) : y;
        return RefTensor.rounded(out, laid.data());
    }
}
