package dev.rlx.opt.decompose;

import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.Rewriter;
import java.util.List;

/**
 * Rotary position embedding in slices, element-wise ops and a concat, on x viewed as {@code [B, S, H, D]}
 * (BSHD) or {@code [B, H, S, D]} (BHSD): the pairs' first and second elements are sliced out (halves for
 * rotate-half, even and odd positions for interleaved), rotated by {@code a' = a cos - b sin},
 * {@code b' = b cos + a sin} with cos and sin viewed to broadcast over the heads, put back in place and
 * followed by the dims past {@code rotaryDim} unchanged. The same f32 arithmetic as the CPU kernel's vector
 * path (no fused multiply-add).
 */
final class RopeDecomposition {
    private RopeDecomposition() {}

    static List<Value> apply(Node n, Rewriter r) {
        Op.Rope op = (Op.Rope) n.op();
        Graph g = r.graph();
        List<Value> in = r.get(n.inputs());
        Value x = in.get(0);
        int d = op.headDim();
        int rot = op.rotaryDim();
        int half = rot / 2;
        boolean bhsd = op.layout() == HeadLayout.BHSD;
        Value x4 = x.rank() == 3 ? g.reshape(x, x.dim(0), x.dim(1), x.dim(2) / d, d) : x;
        Value cos = table(g, in.get(1), bhsd);
        Value sin = table(g, in.get(2), bhsd);

        Value rotated = rot == d ? x4 : g.narrow(x4, -1, 0, rot);
        Value a = op.interleaved() ? g.slice(rotated, -1, 0, half, 2) : g.narrow(rotated, -1, 0, half);
        Value b = op.interleaved() ? g.slice(rotated, -1, 1, half, 2) : g.narrow(rotated, -1, half, half);
        Value a2 = g.sub(g.mul(a, cos), g.mul(b, sin));
        Value b2 = g.add(g.mul(b, cos), g.mul(a, sin));
        Value y = op.interleaved() ? interleave(g, a2, b2) : g.concat(-1, a2, b2);
        if (rot < d) {
            y = g.concat(-1, y, g.narrow(x4, -1, rot, d - rot));
        }
        return List.of(x.rank() == 3 ? g.reshape(y, x.shape().dims()) : y);
    }

    /**
     * A cos or sin table ({@code [S, half]} or {@code [B, S, half]}) viewed to broadcast against the pairs
     * {@code [B, S, H, half]} (BSHD: a head dim of 1 before the last) or {@code [B, H, S, half]} (BHSD: a
     * head dim of 1 after the batch; a rank-2 table already broadcasts).
     */
    private static Value table(Graph g, Value t, boolean bhsd) {
        if (t.rank() == 2) {
            return bhsd ? t : g.reshape(t, t.dim(0), 1, t.dim(1));
        }
        return bhsd ? g.reshape(t, t.dim(0), 1, t.dim(1), t.dim(2)) : g.reshape(t, t.dim(0), t.dim(1), 1, t.dim(2));
    }

    /** {@code [.., half]} a and b as {@code [.., 2 * half]} holding a0, b0, a1, b1, ... */
    private static Value interleave(Graph g, Value a, Value b) {
        int[] pairs = withLast(a.shape().dims(), a.dim(-1), 1);
        Value joined = g.concat(-1, g.reshape(a, pairs), g.reshape(b, pairs)); // [.., half, 2]
        return g.reshape(joined, withLast(a.shape().dims(), 2 * a.dim(-1)));
    }

    /** {@code dims} with its last entry replaced by {@code last}. */
    private static int[] withLast(int[] dims, int... last) {
        int[] out = new int[dims.length - 1 + last.length];
        System.arraycopy(dims, 0, out, 0, dims.length - 1);
        System.arraycopy(last, 0, out, dims.length - 1, last.length);
        return out;
    }
}
