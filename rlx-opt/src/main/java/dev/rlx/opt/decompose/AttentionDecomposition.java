package dev.rlx.opt.decompose;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.opt.Rewriter;
import java.util.List;

/**
 * Scaled dot-product attention as two matmuls around a softmax, in heads-first {@code [B, H, S, D]} form:
 * <pre>
 *   s = (q k^T) * scale;  s = c * tanh(s / c)                      (softcap c > 0 only)
 *   s = s + mask  (float mask)  |  keep = causal/window AND mask (bool): s = where(keep, s, -inf)
 *   p = softmax(s, last axis), zeroed on rows whose every score is -inf (the op's fully masked row)
 *   y = p v, back in the op's layout
 * </pre>
 * Grouped-query heads need no copies of k and v: the {@code numHeads / numKvHeads} query heads that share a kv
 * head are adjacent (head h reads kv head {@code h / group}), so q viewed as {@code [B, Hkv, group * Sq, D]}
 * meets k and v of {@code [B, Hkv, Sk, D]} in ordinary batched matmuls. The causal and sliding-window masks
 * are BOOL {@code [Sq, Sk]} constants built here (the shapes are static). {@code q k^T} is a matmul reading k
 * transposed ({@code transB}), which a target without that form gets as an explicit transpose
 * ({@link TransposedMatMul}).
 *
 * <p>Numerics: the scores and probabilities are rounded to f32 (for f32 data) where the CPU kernel holds them
 * in double. Against a float64 reference (headDim 64, 128 keys, unit-scale data) the max error is 1.1-1.4e-7,
 * the kernel's 1.2-1.5e-7; with scores up to about 15 (q and k in [-3, 3], softcap 5) it is 4.8e-7, twice
 * the kernel's 2.3e-7, as the rounding of exp's argument grows with it.
 */
final class AttentionDecomposition {
    private AttentionDecomposition() {}

    /** Whether the built-in mask of {@code n} fits in a constant (at most 2^31 - 1 elements). */
    static boolean fits(Node n) {
        Op.Attention a = (Op.Attention) n.op();
        int[] q = heads(n.inputs().get(0).shape().dims(), a.layout(), a.headDim());
        int[] k = heads(n.inputs().get(1).shape().dims(), a.layout(), a.headDim());
        return a.mask() == Op.Attention.Mask.NONE || (long) q[1] * k[1] <= Integer.MAX_VALUE;
    }

    static List<Value> apply(Node n, Rewriter r) {
        Op.Attention a = (Op.Attention) n.op();
        Graph g = r.graph();
        List<Value> in = r.get(n.inputs());
        Value q = in.get(0);
        Value mask = in.size() > 3 ? in.get(3) : null;
        DType t = q.dtype();
        HeadLayout layout = a.layout();
        int d = a.headDim();
        int heads = a.numHeads();
        int kvHeads = a.numKvHeads();
        int group = heads / kvHeads;
        Value q4 = headsFirst(g, q, layout, d);         // [B, H, Sq, D]
        Value k4 = headsFirst(g, in.get(1), layout, d); // [B, Hkv, Sk, D]
        Value v4 = headsFirst(g, in.get(2), layout, d); // [B, Hkv, Sk, D]
        int b = q4.dim(0);
        int sq = q4.dim(2);
        int sk = k4.dim(2);

        Value s = grouped(g, g.apply1(new Op.MatMul(false, true), grouped(g, q4, kvHeads), k4), heads); // [B, H, Sq, Sk]
        s = g.mul(s, g.scalar(t, a.scale()));
        if (a.softcap() > 0) {
            Value c = g.scalar(t, a.softcap());
            s = g.mul(g.tanh(g.div(s, c)), c);
        }
        Value keep = builtInMask(g, a, sq, sk);
        if (mask != null && mask.dtype() == DType.BOOL) {
            keep = keep == null ? mask : g.and(keep, mask);
        } else if (mask != null) {
            s = g.add(s, mask);
        }
        Value minusInf = g.scalar(t, Double.NEGATIVE_INFINITY);
        if (keep != null) {
            s = g.where(keep, s, minusInf);
        }
        Value p = g.softmax(s, -1);
        if (mask != null || (keep != null && sq > sk)) {
            // a row with no visible key: softmax gives NaN (-inf - -inf); the op defines it as zeros
            Value empty = g.eq(g.reduceMax(s, true, -1), minusInf);
            p = g.where(empty, g.scalar(t, 0), p);
        }
        Value y = grouped(g, g.matmul(grouped(g, p, kvHeads), v4), heads); // [B, H, Sq, D]
        return List.of(inLayout(g, y, q.shape().dims(), layout));
    }

    /**
     * {@code x [B, H1, R, C]} viewed as {@code [B, H2, R * H1 / H2, C]}: merges the query heads of a kv group
     * into rows (H2 = Hkv) or splits them out again (H2 = H); the identity when there are no groups.
     */
    private static Value grouped(Graph g, Value x, int toHeads) {
        if (x.dim(1) == toHeads) {
            return x;
        }
        return g.reshape(x, x.dim(0), toHeads, (int) ((long) x.dim(2) * x.dim(1) / toHeads), x.dim(3));
    }

    /**
     * The BOOL {@code [Sq, Sk]} keep-mask of CAUSAL (query i sees keys {@code j <= i + Sk - Sq}) or
     * SLIDING_WINDOW (also only the last {@code window} of those), or null for NONE.
     */
    private static Value builtInMask(Graph g, Op.Attention a, int sq, int sk) {
        if (a.mask() == Op.Attention.Mask.NONE) {
            return null;
        }
        boolean[] keep = new boolean[sq * sk];
        for (int i = 0; i < sq; i++) {
            long last = (long) i + sk - sq;
            long first = a.mask() == Op.Attention.Mask.SLIDING_WINDOW ? last - a.window() + 1 : 0;
            for (int j = 0; j < sk; j++) {
                keep[i * sk + j] = j <= last && j >= first;
            }
        }
        return g.constant(Tensor.of(keep, sq, sk));
    }

    /** An attention operand in {@code layout} as {@code [B, H, S, D]}. */
    private static Value headsFirst(Graph g, Value x, HeadLayout layout, int d) {
        if (layout == HeadLayout.BHSD) {
            return x;
        }
        Value x4 = x.rank() == 3 ? g.reshape(x, x.dim(0), x.dim(1), x.dim(2) / d, d) : x;
        return g.transpose(x4, 0, 2, 1, 3);
    }

    /** {@code y [B, H, S, D]} in {@code layout}, with the operand dims {@code dims} (rank 3 or 4). */
    private static Value inLayout(Graph g, Value y, int[] dims, HeadLayout layout) {
        if (layout == HeadLayout.BHSD) {
            return y;
        }
        Value bshd = g.transpose(y, 0, 2, 1, 3);
        return dims.length == 3 ? g.reshape(bshd, dims) : bshd;
    }

    /** (B, S, H, D) of operand dims {@code s} in {@code layout}. */
    private static int[] heads(int[] s, HeadLayout layout, int d) {
        if (layout == HeadLayout.BHSD) {
            return new int[] {s[0], s[2], s[1], s[3]};
        }
        return s.length == 3 ? new int[] {s[0], s[1], s[2] / d, d} : s;
    }
}
