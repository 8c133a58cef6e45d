package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Value;

/**
 * Drops nodes no output depends on. Inputs and params are always kept, so callers can set them whether
 * or not the graph uses them; so are impure nodes (custom ops with side effects) and what they read.
 */
public final class DeadCodeElimination implements Pass {
    @Override
    public String name() {
        return "dce";
    }

    @Override
    public Graph apply(Graph g) {
        boolean[] live = new boolean[g.size()];
        for (Value v : g.outputs()) {
            live[v.nodeId()] = true;
        }
        int dead = 0;
        for (int id = g.size() - 1; id >= 0; id--) {
            OpKind k = g.node(id).kind();
            if (k == OpKind.INPUT || k == OpKind.PARAM || !g.node(id).op().isPure()) {
                live[id] = true;
            }
            if (live[id]) {
                for (Value v : g.node(id).inputs()) {
                    live[v.nodeId()] = true;
                }
            } else {
                dead++;
            }
        }
        return dead == 0 ? g : GraphCopier.copy(g, n -> live[n.id()]);
    }
}
