package dev.rlx.opt.decompose;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.Rewriter;
import java.util.List;

/**
 * Softmax and log-softmax along the op's axis, with the line's max subtracted first so {@code exp} never
 * overflows and the largest term is exactly 1 (the sum is then at least 1, no underflow to 0 either). A line
 * holding +inf or only -inf gives NaN, as the CPU kernel does.
 */
final class SoftmaxFamily {
    private SoftmaxFamily() {}

    /** {@code e / sum(e)} with {@code e = exp(x - max(x))}. */
    static List<Value> softmax(Node n, Rewriter r) {
        int axis = ((Op.Softmax) n.op()).axis();
        Graph g = r.graph();
        Value x = r.get(n.inputs().get(0));
        Value e = g.exp(g.sub(x, g.reduceMax(x, true, axis)));
        return List.of(g.div(e, g.reduceSum(e, true, axis)));
    }

    /** {@code d - log(sum(exp(d)))} with {@code d = x - max(x)}: the log of a sum >= 1, never of 0. */
    static List<Value> logSoftmax(Node n, Rewriter r) {
        int axis = ((Op.LogSoftmax) n.op()).axis();
        Graph g = r.graph();
        Value x = r.get(n.inputs().get(0));
        Value d = g.sub(x, g.reduceMax(x, true, axis));
        return List.of(g.sub(d, g.log(g.reduceSum(g.exp(d), true, axis))));
    }
}
