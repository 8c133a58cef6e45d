package dev.rlx.ir;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks a whole graph, including its subgraphs, before it is compiled.
 *
 * <p>Errors (thrown together as a {@link GraphVerificationException}): no outputs set; an operand or output
 * that is not an earlier node's output in this graph (dangling, foreign, or a cycle); a node whose recorded
 * output shapes no longer match its op's shape rule (e.g. a subgraph changed after it was used, so the
 * subgraph signature no longer fits); an input or param name used twice; and any error inside a subgraph.
 * Warnings (returned): inputs and params no output depends on, and nodes whose results are never used.
 *
 * <p>Graph builders already enforce most of this as nodes are added; the verifier re-checks the finished
 * graph so compilers can rely on it. {@link GraphSerializer#fromBytes} applies the same reference rules to
 * untrusted bytes.
 */
public final class GraphVerifier {
    private GraphVerifier() {}

    /** Returns the warnings; throws {@link GraphVerificationException} listing every error. */
    public static List<String> verify(Graph g) {
        List<String> errors = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        check(g, "", errors, warnings);
        if (!errors.isEmpty()) {
            throw new GraphVerificationException(g.name(), errors);
        }
        return warnings;
    }

    /**
     * The structural part of {@link #verify}, subgraphs included: outputs set, every operand and output an
     * earlier node's output of the same graph, names unique. It skips re-running each op's shape rule and the
     * unused-value warnings, the costly parts, so a compiler can afford it after every pass; what it checks is
     * what a pass needs to walk a graph safely.
     *
     * @throws GraphVerificationException listing every error
     */
    public static void verifyStructure(Graph g) {
        List<String> errors = new ArrayList<>();
        check(g, "", errors, null);
        if (!errors.isEmpty()) {
            throw new GraphVerificationException(g.name(), errors);
        }
    }

    /** Adds {@code g}'s errors; with {@code warnings} null, only the structural checks run. */
    private static void check(Graph g, String where, List<String> errors, List<String> warnings) {
        if (g.outputs().isEmpty()) {
            errors.add(where + "graph @" + g.name() + " has no outputs (call setOutputs)");
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Node n : g.nodes()) {
            for (int i = 0; i < n.inputs().size(); i++) {
                Value v = n.inputs().get(i);
                String problem = reference(g, v, n.id());
                if (problem != null) {
                    errors.add(where + "node " + n.describe() + " operand " + i + " " + problem);
                }
            }
            // the op's name, not Node.name(), which a display name given with Graph.name overrides
            String sourceName = switch (n.op()) {
                case Op.Input in -> in.name();
                case Op.Param p -> p.name();
                default -> null;
            };
            if (sourceName != null && !names.add(sourceName)) {
                errors.add(where + "node " + n.describe() + " reuses the name '" + sourceName + "'");
            }
            if (warnings != null) {
                checkShapes(n, where, errors);
            }
            for (OpFields.Field f : OpFields.of(n.op()).fields()) {
                if (f.type() == OpFields.FieldType.GRAPH) {
                    Graph sub = (Graph) f.get(n.op());
                    check(sub, where + "in " + f.name() + " of " + n.describe() + ": ", errors, warnings);
                }
            }
        }
        for (int i = 0; i < g.outputs().size(); i++) {
            String problem = reference(g, g.outputs().get(i), g.size());
            if (problem != null) {
                errors.add(where + "output " + i + " " + problem);
            }
        }
        if (errors.isEmpty() && warnings != null) {
            unused(g, where, warnings);
        }
    }

    /** Whether {@code n}'s op still gives the output shapes it recorded. */
    private static void checkShapes(Node n, String where, List<String> errors) {
        try {
            List<Shape> inferred = n.op().outputShapes(n.inputs().stream().map(Value::shape).toList());
            List<Shape> recorded = n.outputs().stream().map(Value::shape).toList();
            if (!inferred.equals(recorded)) {
                errors.add(where + "node " + n.describe() + " records outputs " + recorded + " but its op now gives "
                        + inferred);
            }
        } catch (ShapeException e) {
            errors.add(where + "node " + n.describe() + ": " + e.getMessage());
        }
    }

    /** Null if {@code v} is an output of a node defined before {@code user}, else what is wrong. */
    private static String reference(Graph g, Value v, int user) {
        if (v.graph() != g) {
            return v + " belongs to graph @" + v.graph().name();
        }
        if (v.nodeId() >= user) {
            return "refers to " + v + ", which is not defined before it (a cycle)";
        }
        if (v.outputIndex() >= g.node(v.nodeId()).outputs().size()) {
            return "refers to a missing output " + v;
        }
        return null;
    }

    private static void unused(Graph g, String where, List<String> warnings) {
        boolean[] live = new boolean[g.size()];
        for (Value v : g.outputs()) {
            live[v.nodeId()] = true;
        }
        for (int id = g.size() - 1; id >= 0; id--) {
            if (live[id]) {
                for (Value v : g.node(id).inputs()) {
                    live[v.nodeId()] = true;
                }
            }
        }
        int dead = 0;
        for (Node n : g.nodes()) {
            if (live[n.id()]) {
                continue;
            }
            if (n.op() instanceof Op.Input in) {
                warnings.add(where + "input '" + in.name() + "' is not used by any output");
            } else if (n.op() instanceof Op.Param p) {
                warnings.add(where + "param '" + p.name() + "' is not used by any output");
            } else {
                dead++;
            }
        }
        if (dead > 0) {
            warnings.add(where + dead + " node" + (dead == 1 ? " does" : "s do") + " not contribute to any output");
        }
    }
}
