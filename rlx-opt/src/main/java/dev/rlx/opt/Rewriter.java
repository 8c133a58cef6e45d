package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds a graph node by node through the builders (so every shape rule re-checks the result), letting a
 * rule replace any node: emit other nodes, forward an existing value, or drop it. Values are mapped from
 * the old graph to the new one as nodes are copied.
 */
public final class Rewriter {
    /** Decides what to do with one node; {@link #copy} is the default. */
    @FunctionalInterface
    public interface Rule {
        void visit(Node n, Rewriter r);
    }

    private final Graph in;
    private final Graph out;
    private final Map<Value, Value> map = new HashMap<>();
    private boolean changed;

    private Rewriter(Graph in) {
        this.in = in;
        this.out = new Graph(in.name());
    }

    /** Applies {@code rule} to every node in order; returns {@code g} itself when the rule changed nothing. */
    public static Graph rewrite(Graph g, Rule rule) {
        Rewriter r = new Rewriter(g);
        for (Node n : g.nodes()) {
            rule.visit(n, r);
        }
        if (!r.changed) {
            return g;
        }
        List<Value> outs = new ArrayList<>();
        for (Value v : g.outputs()) {
            outs.add(r.get(v));
        }
        r.out.setOutputs(outs);
        return r.out;
    }

    /** The graph being built. */
    public Graph graph() {
        return out;
    }

    /** The new value standing for old value {@code v}. */
    public Value get(Value v) {
        Value m = map.get(v);
        if (m == null) {
            throw new IllegalStateException("value " + v + " of @" + in.name() + " has no counterpart yet");
        }
        return m;
    }

    public List<Value> get(List<Value> vs) {
        List<Value> r = new ArrayList<>(vs.size());
        for (Value v : vs) {
            r.add(get(v));
        }
        return r;
    }

    /** Copies {@code n} unchanged (its operands mapped). */
    public List<Value> copy(Node n) {
        List<Value> outs = out.apply(n.op(), get(n.inputs()));
        bind(n, outs);
        String name = n.name();
        if (name != null && !(n.op() instanceof Op.Input || n.op() instanceof Op.Param)) {
            out.name(outs.get(0), name);
        }
        return outs;
    }

    /** Emits {@code op} on new values; marks the graph changed. */
    public List<Value> emit(Op op, List<Value> newOperands) {
        changed = true;
        return out.apply(op, newOperands);
    }

    /** Makes old {@code n}'s outputs stand for {@code values}; marks the graph changed. */
    public void replace(Node n, List<Value> values) {
        changed = true;
        bind(n, values);
    }

    /** Makes old value {@code v} stand for new value {@code w}; marks the graph changed. */
    public void replace(Value v, Value w) {
        changed = true;
        map.put(v, w);
    }

    /** Leaves {@code n} out (its outputs must not be used later); marks the graph changed. */
    public void drop(Node n) {
        changed = true;
    }

    private void bind(Node n, List<Value> values) {
        for (int i = 0; i < n.outputs().size(); i++) {
            map.put(n.outputs().get(i), values.get(i));
        }
    }
}
