package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Replaces pure computations on constants by their value. All foldable values that non-foldable nodes (or
 * the outputs) need are computed in one evaluation of a constant-only subgraph by the
 * {@link ConstantEvaluator}, i.e. by the same kernels that would run them. A value much larger than what it
 * is computed from (a broadcast of a scalar, say) is left to run time rather than stored.
 */
public final class ConstantFolding implements Pass {
    /** Results up to this size always fold; larger ones only if no bigger than their inputs. */
    static final long SMALL_BYTES = 1 << 20;
    /** Buffer alignment of the constant subgraph's plan (a cache line and an AVX-512 vector). */
    private static final int PLAN_ALIGNMENT = 64;

    private final ConstantEvaluator evaluator;

    public ConstantFolding(ConstantEvaluator evaluator) {
        this.evaluator = evaluator;
    }

    @Override
    public String name() {
        return "fold";
    }

    @Override
    public Graph apply(Graph g) {
        boolean[] constant = new boolean[g.size()];
        Capabilities evaluable = evaluator.capabilities();
        for (Node n : g.nodes()) {
            constant[n.id()] = foldable(n, constant) && (n.op() instanceof Op.Constant || evaluable.claims(n));
        }
        Set<Value> needed = new LinkedHashSet<>();
        for (Node n : g.nodes()) {
            if (!constant[n.id()]) {
                for (Value v : n.inputs()) {
                    if (constant[v.nodeId()] && !(v.node().op() instanceof Op.Constant)) {
                        needed.add(v);
                    }
                }
            }
        }
        for (Value v : g.outputs()) {
            if (constant[v.nodeId()] && !(v.node().op() instanceof Op.Constant)) {
                needed.add(v);
            }
        }
        if (needed.isEmpty()) {
            return g;
        }
        Map<Value, Tensor> values = evaluate(g, constant, new ArrayList<>(needed));
        return Rewriter.rewrite(g, (n, r) -> {
            if (!constant[n.id()] || n.op() instanceof Op.Constant) {
                r.copy(n);
                return;
            }
            List<Value> outs = new ArrayList<>();
            boolean anyNeeded = false;
            for (Value v : n.outputs()) {
                Tensor t = values.get(v);
                anyNeeded |= t != null;
                outs.add(t == null ? null : r.emit(new Op.Constant(t), List.of()).get(0));
            }
            if (anyNeeded) {
                r.replace(n, outs);
            } else {
                r.drop(n); // an intermediate of the folded subgraph
            }
        });
    }

    private static boolean foldable(Node n, boolean[] constant) {
        Op op = n.op();
        if (op instanceof Op.Constant) {
            return true;
        }
        if (n.inputs().isEmpty() || !op.isPure() || OpKind.CONTROL_FLOW.contains(n.kind()) || op instanceof Op.Custom) {
            return false;
        }
        long in = 0;
        for (Value v : n.inputs()) {
            if (!constant[v.nodeId()]) {
                return false;
            }
            in += v.shape().byteSize();
        }
        long out = 0;
        for (Value v : n.outputs()) {
            out += v.shape().byteSize();
        }
        return out <= SMALL_BYTES || out <= in;
    }

    /** Builds the constant subgraph that computes {@code needed} and runs it. */
    private Map<Value, Tensor> evaluate(Graph g, boolean[] constant, List<Value> needed) {
        Graph sub = new Graph(g.name() + "_constants");
        Map<Value, Value> map = new HashMap<>();
        for (Node n : g.nodes()) {
            if (!constant[n.id()]) {
                continue;
            }
            List<Value> in = new ArrayList<>();
            for (Value v : n.inputs()) {
                in.add(map.get(v));
            }
            List<Value> outs = sub.apply(n.op(), in);
            for (int i = 0; i < outs.size(); i++) {
                map.put(n.outputs().get(i), outs.get(i));
            }
        }
        sub.setOutputs(needed.stream().map(map::get).toList());
        List<Tensor> results = evaluator.evaluate(sub, MemoryPlanner.plan(sub, PLAN_ALIGNMENT));
        Map<Value, Tensor> values = new HashMap<>();
        for (int i = 0; i < needed.size(); i++) {
            values.put(needed.get(i), results.get(i));
        }
        return values;
    }
}
