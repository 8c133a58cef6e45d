package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges nodes that apply an equal op (records compare attributes by value, constants by bytes) to the
 * same operands. Only pure ops merge: inputs, params, impure custom ops and random-number ops never do.
 */
public final class CommonSubexpressionElimination implements Pass {
    private record Key(Op op, List<Value> operands) {}

    @Override
    public String name() {
        return "cse";
    }

    @Override
    public Graph apply(Graph g) {
        Map<Key, List<Value>> seen = new HashMap<>();
        return Rewriter.rewrite(g, (n, r) -> {
            boolean mergeable = n.op().isPure() && !(n.op() instanceof Op.Input) && !(n.op() instanceof Op.Param);
            if (!mergeable) {
                r.copy(n);
                return;
            }
            Key key = new Key(n.op(), r.get(n.inputs()));
            List<Value> earlier = seen.get(key);
            if (earlier != null) {
                r.replace(n, earlier);
            } else {
                seen.put(key, r.copy(n));
            }
        });
    }
}
