package dev.rlx.testkit;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One conformance case: a name, a graph builder, the data of every input and param (generated from a
 * {@link Random} seeded by the name, so the same on every run and every backend) and the tolerance of each
 * output. Backends run the graph on the data and must match the {@link dev.rlx.testkit.reference.ReferenceInterpreter
 * reference} within the tolerance.
 *
 * <pre>{@code
 * OpCase c = OpCase.named("matmul_f32_7x13x19")
 *     .graph(g -> g.setOutputs(g.matmul(g.input("a", Shape.of(F32, 7, 13)), g.input("b", Shape.of(F32, 13, 19)))))
 *     .data("b", Data.uniform(-2, 2))
 *     .tolerance(DType.F32, Tolerance.of(1e-5, 1e-5, "13-term f32 sums"))
 *     .build();
 * }</pre>
 *
 * <p>Immutable; {@link #instantiate} makes the graph and data afresh each time (nothing is kept, so a catalog of
 * large cases costs no memory until it runs).
 */
public final class OpCase {
    private final String name;
    private final Consumer<Graph> body;
    private final Map<String, Data> data;
    private final Tolerances tolerances;
    private final Map<Integer, Tolerance> outputTolerances;

    private OpCase(Builder b) {
        this.name = b.name;
        this.body = b.body;
        this.data = Map.copyOf(b.data);
        this.tolerances = b.tolerances;
        this.outputTolerances = Map.copyOf(b.outputTolerances);
    }

    /** Starts a case; {@code name} follows {@code op_condition} ({@code matmul_transposedB_f32}). */
    public static Builder named(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** A fresh copy of the case's graph, as its builder makes it. */
    public Graph buildGraph() {
        Graph g = new Graph(name.replaceAll("[^A-Za-z0-9_]", "_"));
        body.accept(g);
        if (g.outputs().isEmpty()) {
            throw new IllegalStateException("case " + name + ": the graph builder set no outputs");
        }
        return g;
    }

    /** The op kinds the case's graph uses, subgraphs included: what a backend's {@code skipReason} can test. */
    public Set<OpKind> kinds() {
        Set<OpKind> k = EnumSet.noneOf(OpKind.class);
        forEachNode(buildGraph(), n -> k.add(n.kind()));
        return k;
    }

    /** The dtypes of every value the case's graph makes, subgraphs included. */
    public Set<DType> dtypes() {
        Set<DType> d = EnumSet.noneOf(DType.class);
        forEachNode(buildGraph(), n -> n.outputs().forEach(v -> d.add(v.dtype())));
        return d;
    }

    private static void forEachNode(Graph g, Consumer<Node> f) {
        for (Node n : g.nodes()) {
            f.accept(n);
            switch (n.op()) {
                case Op.If i -> {
                    forEachNode(i.thenBranch(), f);
                    forEachNode(i.elseBranch(), f);
                }
                case Op.While w -> {
                    forEachNode(w.cond(), f);
                    forEachNode(w.body(), f);
                }
                case Op.Scan sc -> forEachNode(sc.body(), f);
                default -> { }
            }
        }
    }

    /** A fresh graph and its data: the graph as the builder makes it, every input and param filled. */
    public Instance instantiate() {
        Graph g = buildGraph();
        Random r = new Random(name.hashCode());
        Map<String, Tensor> m = new LinkedHashMap<>();
        List<Value> slots = new ArrayList<>(g.inputs());
        slots.addAll(g.params());
        for (Value v : slots) {
            String n = g.nameOf(v);
            m.put(n, data.getOrDefault(n, Data.standard()).generate(v.shape(), r));
        }
        for (String n : data.keySet()) {
            if (!m.containsKey(n)) {
                throw new IllegalStateException("case " + name + " has data for '" + n + "', which the graph lacks");
            }
        }
        return new Instance(g, java.util.Collections.unmodifiableMap(m));
    }

    /**
     * A case made concrete: its graph and the tensor for each input and param by name. Data is generated in
     * slot declaration order from a {@link Random} seeded by the case's name, so it is the same every time.
     */
    public record Instance(Graph graph, Map<String, Tensor> data) {}

    /** The tolerance output {@code index} (of {@code dtype}) is held to. */
    public Tolerance tolerance(int index, DType dtype) {
        Tolerance t = outputTolerances.get(index);
        return t != null && !(dtype.isInteger() || dtype.isBool()) ? t : tolerances.of(dtype);
    }

    @Override
    public String toString() {
        return name;
    }

    /** Collects a case's parts; {@link #graph} is required. */
    public static final class Builder {
        private final String name;
        private Consumer<Graph> body;
        private final Map<String, Data> data = new HashMap<>();
        private Tolerances tolerances = Tolerances.defaults();
        private final Map<Integer, Tolerance> outputTolerances = new HashMap<>();

        private Builder(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a case needs a name");
            }
            this.name = name;
        }

        /** Declares the inputs and params, applies the op and calls {@code setOutputs}. */
        public Builder graph(Consumer<Graph> body) {
            this.body = body;
            return this;
        }

        /** How the input or param {@code slot} is filled (default {@link Data#standard()}). */
        public Builder data(String slot, Data d) {
            data.put(slot, d);
            return this;
        }

        /** The tolerance for outputs of {@code dtype}, replacing the default. */
        public Builder tolerance(DType dtype, Tolerance t) {
            tolerances = tolerances.with(dtype, t);
            return this;
        }

        /** The tolerance for output {@code index} whatever its float dtype. */
        public Builder tolerance(int index, Tolerance t) {
            outputTolerances.put(index, t);
            return this;
        }

        public OpCase build() {
            if (body == null) {
                throw new IllegalStateException("case " + name + " has no graph");
            }
            return new OpCase(this);
        }
    }
}
