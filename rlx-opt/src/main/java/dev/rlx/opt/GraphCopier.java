package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Rebuilds a graph node by node through the builders, so the copy is re-checked by every shape rule. */
public final class GraphCopier {
    private GraphCopier() {}

    /** A copy holding only the nodes {@code keep} accepts (their operands must be kept too), in order. */
    public static Graph copy(Graph g, Predicate<Node> keep) {
        Graph out = new Graph(g.name());
        Map<Value, Value> map = new HashMap<>();
        for (Node n : g.nodes()) {
            if (!keep.test(n)) {
                continue;
            }
            List<Value> in = new ArrayList<>(n.inputs().size());
            for (Value v : n.inputs()) {
                Value m = map.get(v);
                if (m == null) {
                    throw new IllegalStateException("node " + n.describe() + " kept but its operand " + v + " was dropped");
                }
                in.add(m);
            }
            List<Value> outs = out.apply(n.op(), in);
            for (int i = 0; i < outs.size(); i++) {
                map.put(n.outputs().get(i), outs.get(i));
            }
            String name = n.name();
            if (name != null && !outs.isEmpty() && out.nameOf(outs.get(0)) == null) {
                out.name(outs.get(0), name);
            }
        }
        out.setOutputs(g.outputs().stream().map(map::get).toList());
        return out;
    }
}
