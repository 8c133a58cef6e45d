package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A pass that replaces the last node of each matched pattern by one new op: {@link #match} finds patterns on
 * the graph as it is (so every match sees the original use counts), then one rewrite emits the replacements;
 * nodes the replacements no longer need are left to dead-code elimination. Returns the graph itself when
 * nothing matched.
 *
 * @param <M> what a match records: the values the new op reads and its attributes
 */
abstract class NodeFusion<M> implements Pass {
    /** The match ending at {@code n}, or null. */
    abstract M match(Node n, Uses uses);

    /** Emits the op for match {@code m} through {@code r} and returns its outputs, which replace the matched node's. */
    abstract List<Value> emit(M m, Rewriter r);

    @Override
    public final Graph apply(Graph g) {
        Uses uses = new Uses(g);
        Map<Node, M> matches = new HashMap<>();
        for (Node n : g.nodes()) {
            M m = match(n, uses);
            if (m != null) {
                matches.put(n, m);
            }
        }
        if (matches.isEmpty()) {
            return g;
        }
        return Rewriter.rewrite(g, (n, r) -> {
            M m = matches.get(n);
            if (m == null) {
                r.copy(n);
            } else {
                r.replace(n, emit(m, r));
            }
        });
    }
}
