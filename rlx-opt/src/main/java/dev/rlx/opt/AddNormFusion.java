package dev.rlx.opt;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Residual + norm fusion: {@code s = a + b; y = norm(s)} (RMS or layer norm, no broadcasting in the add)
 * becomes one {@link Op.AddNorm} with outputs (s, y), emitted where the add was, so later users of the sum
 * (the residual stream) still see it.
 */
public final class AddNormFusion implements Pass {
    @Override
    public String name() {
        return "fuse_add_norm";
    }

    @Override
    public Graph apply(Graph g) {
        Map<Node, Node> normOfAdd = new HashMap<>();
        for (Node n : g.nodes()) {
            boolean rms = n.op() instanceof Op.RmsNorm;
            if (!(rms || n.op() instanceof Op.LayerNorm)) {
                continue;
            }
            Node add = n.inputs().get(0).node();
            if (!(add.op() instanceof Op.Binary b) || b.op() != BinaryKind.ADD || normOfAdd.containsKey(add)) {
                continue;
            }
            Value x = add.inputs().get(0);
            Value res = add.inputs().get(1);
            boolean plain = x.shape().equals(add.shape()) && res.shape().equals(add.shape());
            boolean paramsEarlier = true;
            for (Value v : n.inputs().subList(1, n.inputs().size())) {
                paramsEarlier &= v.nodeId() < add.id() && !v.equals(add.output());
            }
            if (plain && paramsEarlier) {
                normOfAdd.put(add, n);
            }
        }
        if (normOfAdd.isEmpty()) {
            return g;
        }
        Map<Node, List<Value>> fused = new HashMap<>();
        return Rewriter.rewrite(g, (n, r) -> {
            Node norm = normOfAdd.get(n);
            if (norm != null) {
                boolean rms = norm.op() instanceof Op.RmsNorm;
                int axis = rms ? ((Op.RmsNorm) norm.op()).axis() : ((Op.LayerNorm) norm.op()).axis();
                float eps = rms ? ((Op.RmsNorm) norm.op()).eps() : ((Op.LayerNorm) norm.op()).eps();
                List<Value> in = new ArrayList<>(r.get(n.inputs()));
                in.addAll(r.get(norm.inputs().subList(1, norm.inputs().size())));
                List<Value> outs = r.emit(new Op.AddNorm(rms, axis, eps), in);
                r.replace(n.output(), outs.get(0));
                fused.put(norm, outs);
            } else if (fused.containsKey(n)) {
                r.replace(n.output(), fused.get(n).get(1));
            } else {
                r.copy(n);
            }
        });
    }
}
