package dev.rlx.onnx;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.Map;

/**
 * The ONNX names visible while lowering one graph (the main graph or a subgraph) and the IR graph they
 * live in. A subgraph sees its parent's names: a value known at import time is copied in as a constant,
 * any other arrives through the subgraph input made for it before lowering (see {@link Subgraphs}).
 */
final class Scope {
    final Scope parent;
    final Graph graph;
    /** An inlined body (an unrolled loop iteration) shares its parent's graph and sees all its values. */
    private final boolean inline;
    private final Map<String, Value> values = new HashMap<>();
    private final Map<String, Tensor> statics = new HashMap<>();

    Scope(Scope parent, Graph graph) {
        this.parent = parent;
        this.graph = graph;
        this.inline = parent != null && parent.graph == graph;
    }

    void define(String name, Value v) {
        values.put(name, v);
    }

    /** Defines {@code name} as a value known at import time; it becomes a constant on first use. */
    void defineStatic(String name, Tensor t) {
        statics.put(name, t);
        values.remove(name);
    }

    boolean definesLocally(String name) {
        return values.containsKey(name) || statics.containsKey(name);
    }

    /** The value known at import time for {@code name} here or in an enclosing scope, or null. */
    Tensor staticValue(String name) {
        if (statics.containsKey(name)) {
            return statics.get(name);
        }
        if (values.containsKey(name)) {
            return null;
        }
        return parent == null ? null : parent.staticValue(name);
    }

    /** The IR value for {@code name} in this scope's graph, or null if no scope defines it. */
    Value lookup(String name) {
        Value v = values.get(name);
        if (v != null) {
            return v;
        }
        if (inline && !statics.containsKey(name)) {
            return parent.lookup(name);
        }
        Tensor t = staticValue(name);
        if (t != null) {
            v = graph.constant(t);
            values.put(name, v);
            return v;
        }
        return null;
    }
}
