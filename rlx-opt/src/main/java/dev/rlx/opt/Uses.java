package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.Map;

/** How many times each value is read (by nodes, and once more for each time it is a graph output). */
final class Uses {
    private final Map<Value, Integer> count = new HashMap<>();

    Uses(Graph g) {
        for (Node n : g.nodes()) {
            for (Value v : n.inputs()) {
                count.merge(v, 1, Integer::sum);
            }
        }
        for (Value v : g.outputs()) {
            count.merge(v, 1, Integer::sum);
        }
    }

    int of(Value v) {
        return count.getOrDefault(v, 0);
    }

    /** The node producing {@code v} when {@code v} has exactly one reader (so a fusion may absorb it), else null. */
    Node single(Value v) {
        return of(v) == 1 ? v.node() : null;
    }
}
