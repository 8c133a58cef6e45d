package dev.rlx.opt;

import static dev.rlx.opt.Patterns.isBinary;
import static dev.rlx.opt.Patterns.scalarConstant;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * Multi-head attention written out in matmuls, as BERT-style ONNX exports emit it, becomes one
 * {@link Op.Attention} on the projections' {@code [B, S, H*D]} layout:
 * <pre>
 *   q4 = transpose(reshape(q, [B,S,H,D]), [0,2,1,3]);  k4 = transpose(reshape(k, [B,S,H,D]), [0,2,3,1])
 *   v4 = transpose(reshape(v, [B,S,H,D]), [0,2,1,3])
 *   p  = softmax(q4 @ k4 / c  (or * c)  [+ mask], last axis)     (the softmax may sit between reshapes)
 *   y  = reshape(transpose(p @ v4, [0,2,1,3]), [B,S,H*D])
 * </pre>
 * The scale must be a positive scalar constant, the mask (optional) a float value of q's dtype that
 * broadcasts to {@code [B,H,Sq,Sk]}, and every intermediate value must have no other reader. The fused op
 * needs no head transposes and never writes the {@code H x Sq x Sk} scores to memory.
 */
public final class AttentionFusion extends NodeFusion<AttentionFusion.Match> {
    @Override
    public String name() {
        return "fuse_attention";
    }

    /** A matched attention: what the fused op reads and the reshape it replaces. */
    record Match(Value q, Value k, Value v, Value mask, int heads, int headDim, float scale) {}

    @Override
    List<Value> emit(Match m, Rewriter r) {
        Op.Attention spec = new Op.Attention(m.heads(), m.heads(), m.headDim(), HeadLayout.BSHD, Op.Attention.Mask.NONE, 0,
                m.scale(), 0f);
        List<Value> in = new ArrayList<>(List.of(r.get(m.q()), r.get(m.k()), r.get(m.v())));
        if (m.mask() != null) {
            in.add(r.get(m.mask()));
        }
        return r.emit(spec, in);
    }

    /** {@code out} as the final reshape of a written-out attention, or null. */
    @Override
    Match match(Node out, Uses uses) {
        if (!(out.op() instanceof Op.Reshape) || out.output().rank() != 3) {
            return null;
        }
        Node ot = uses.single(out.inputs().get(0));
        Node pv = ot == null || !isTranspose(ot, 0, 2, 1, 3) ? null : uses.single(ot.inputs().get(0));
        if (!isPlainMatMul(pv) || pv.output().rank() != 4) {
            return null;
        }
        Value v = heads(pv.inputs().get(1), uses, 0, 2, 1, 3);
        Value scores = scoresUnder(pv.inputs().get(0), uses);
        if (v == null || scores == null) {
            return null;
        }
        // (q k^T) [scaled] [+ mask]
        Node node = uses.single(scores);
        Value mask = null;
        if (isBinary(node, BinaryKind.ADD)) {
            for (int side = 0; side < 2 && mask == null; side++) {
                Node s = uses.single(node.inputs().get(side));
                if (isBinary(s, BinaryKind.DIV) || isBinary(s, BinaryKind.MUL) || isPlainMatMul(s)) {
                    mask = node.inputs().get(1 - side);
                    node = s;
                }
            }
            if (mask == null) {
                return null;
            }
        }
        float scale = 1f;
        Node qk = node;
        if (isBinary(node, BinaryKind.DIV)) {
            Float c = scalarConstant(node.inputs().get(1));
            if (c == null || !(c > 0) || Float.isInfinite(c)) {
                return null;
            }
            scale = 1f / c;
            qk = uses.single(node.inputs().get(0));
        } else if (isBinary(node, BinaryKind.MUL)) {
            int side = scalarConstant(node.inputs().get(1)) != null ? 0 : 1;
            Float c = scalarConstant(node.inputs().get(1 - side));
            if (c == null || !(c > 0) || Float.isInfinite(c)) {
                return null;
            }
            scale = c;
            qk = uses.single(node.inputs().get(side));
        }
        if (!isPlainMatMul(qk)) {
            return null;
        }
        Value q = heads(qk.inputs().get(0), uses, 0, 2, 1, 3);
        Value k = heads(qk.inputs().get(1), uses, 0, 2, 3, 1);
        int heads = qk.output().dim(1);
        if (q == null || k == null || !q.shape().equals(out.output().shape()) || !k.shape().equals(v.shape())
                || q.dtype() != k.dtype() || q.dim(0) != k.dim(0) || q.dim(2) != k.dim(2)
                || qk.inputs().get(1).dim(1) != heads || pv.inputs().get(1).dim(1) != heads) {
            return null;
        }
        int headDim = q.dim(2) / heads;
        if (mask != null && !maskFits(mask, q, heads, k.dim(1))) {
            return null;
        }
        return new Match(q, k, v, mask, heads, headDim, scale);
    }

    /**
     * The {@code [B, S, H*D]} value under {@code transpose(reshape(x, [B,S,H,D]), perm)}, when both have no
     * other reader, or null.
     */
    private static Value heads(Value t, Uses uses, int... perm) {
        Node tr = uses.single(t);
        Node rs = tr == null || !isTranspose(tr, perm) ? null : uses.single(tr.inputs().get(0));
        if (rs == null || !(rs.op() instanceof Op.Reshape) || rs.output().rank() != 4) {
            return null;
        }
        Value x = rs.inputs().get(0);
        int[] d = rs.output().shape().dims();
        return x.rank() == 3 && x.dim(0) == d[0] && x.dim(1) == d[1] && x.dim(2) == d[2] * d[3] ? x : null;
    }

    /**
     * The scores whose last-axis softmax {@code p} is: {@code softmax(s)}, or {@code reshape(softmax(reshape(s)))}
     * with the softmax over a flattened view's last axis, which must be the scores' own. Null otherwise.
     */
    private static Value scoresUnder(Value p, Uses uses) {
        Node n = uses.single(p);
        if (n != null && n.op() instanceof Op.Reshape) {
            Node softmax = uses.single(n.inputs().get(0));
            Node flat = softmax == null || !lastAxis(softmax) ? null : uses.single(softmax.inputs().get(0));
            if (flat == null || !(flat.op() instanceof Op.Reshape) || !flat.inputs().get(0).shape().equals(p.shape())
                    || flat.output().dim(flat.output().rank() - 1) != p.dim(p.rank() - 1)) {
                return null;
            }
            return flat.inputs().get(0);
        }
        return n != null && lastAxis(n) ? n.inputs().get(0) : null;
    }

    private static boolean lastAxis(Node n) {
        return n.op() instanceof Op.Softmax s && (s.axis() == n.output().rank() - 1 || s.axis() == -1);
    }

    /** A float mask of q's dtype that broadcasts to {@code [B, H, Sq, Sk]}. */
    private static boolean maskFits(Value mask, Value q, int heads, int sk) {
        if (mask.dtype() != q.dtype() || mask.rank() > 4) {
            return false;
        }
        int[] want = {q.dim(0), heads, q.dim(1), sk};
        for (int i = 0; i < mask.rank(); i++) {
            int d = mask.dim(mask.rank() - 1 - i);
            if (d != 1 && d != want[3 - i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isPlainMatMul(Node n) {
        return n != null && n.op() instanceof Op.MatMul mm && !mm.transA() && !mm.transB();
    }

    private static boolean isTranspose(Node n, int... perm) {
        if (!(n.op() instanceof Op.Transpose t) || t.perm().size() != perm.length) {
            return false;
        }
        for (int i = 0; i < perm.length; i++) {
            if (t.perm().get(i) != perm[i]) {
                return false;
            }
        }
        return true;
    }
}
