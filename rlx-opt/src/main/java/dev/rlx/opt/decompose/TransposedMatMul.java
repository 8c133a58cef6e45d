package dev.rlx.opt.decompose;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.Rewriter;
import java.util.List;

/**
 * A matmul reading an operand transposed ({@code transA} / {@code transB}) as an explicit transpose of that
 * operand's last two dims and a plain matmul, for targets whose matmul takes only the plain form (a
 * {@link dev.rlx.opt.Capabilities.Builder#refuse} rule on MATMUL attributes). Moves data only: the same
 * products in the same order.
 */
final class TransposedMatMul {
    private TransposedMatMul() {}

    static List<Value> apply(Node n, Rewriter r) {
        Op.MatMul m = (Op.MatMul) n.op();
        Graph g = r.graph();
        Value a = r.get(n.inputs().get(0));
        Value b = r.get(n.inputs().get(1));
        return List.of(g.matmul(m.transA() ? g.swapAxes(a, -1, -2) : a, m.transB() ? g.swapAxes(b, -1, -2) : b));
    }
}
