package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * Folds a transpose of the last two dims into the matmul that reads it: {@code x @ transpose(w)} becomes
 * {@code matmul[transB](x, w)}, which reads {@code w} through swapped strides instead of copying it. Only
 * transposes used by nothing else fold (otherwise the copy is still needed).
 */
public final class TransposeFolding implements Pass {
    @Override
    public String name() {
        return "fold_transpose";
    }

    @Override
    public Graph apply(Graph g) {
        Uses uses = new Uses(g);
        return Rewriter.rewrite(g, (n, r) -> {
            boolean ta;
            boolean tb;
            if (n.op() instanceof Op.MatMul mm) {
                ta = mm.transA();
                tb = mm.transB();
            } else if (n.op() instanceof Op.FusedMatMul fm) {
                ta = fm.transA();
                tb = fm.transB();
            } else {
                r.copy(n);
                return;
            }
            List<Value> in = new ArrayList<>(n.inputs());
            boolean[] flip = new boolean[2];
            for (int i = 0; i < 2; i++) {
                Value v = in.get(i);
                if (swapsLastTwo(v.node()) && uses.of(v) == 1) {
                    in.set(i, v.node().inputs().get(0));
                    flip[i] = true;
                }
            }
            if (!flip[0] && !flip[1]) {
                r.copy(n);
                return;
            }
            ta ^= flip[0];
            tb ^= flip[1];
            Op op = n.op() instanceof Op.FusedMatMul fm ? new Op.FusedMatMul(fm.epilogue(), ta, tb) : new Op.MatMul(ta, tb);
            r.replace(n, r.emit(op, r.get(in)));
        });
    }

    /** A transpose that only swaps the last two axes. */
    static boolean swapsLastTwo(Node n) {
        if (!(n.op() instanceof Op.Transpose t) || t.perm().size() < 2) {
            return false;
        }
        int rank = t.perm().size();
        for (int i = 0; i < rank - 2; i++) {
            if (t.perm().get(i) != i) {
                return false;
            }
        }
        return t.perm().get(rank - 2) == rank - 1 && t.perm().get(rank - 1) == rank - 2;
    }
}
