package dev.rlx.onnx;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/** Name analysis of ONNX subgraphs, which may use values of the enclosing graphs by name. */
final class Subgraphs {
    private Subgraphs() {}

    /** Names {@code g} (or a subgraph inside it) uses but does not define, in first-use order. */
    static Set<String> freeNames(OnnxProto.Graph g) {
        Set<String> out = new LinkedHashSet<>();
        collect(g, new HashSet<>(), out);
        return out;
    }

    private static void collect(OnnxProto.Graph g, Set<String> outerDefined, Set<String> out) {
        Set<String> defined = new HashSet<>(outerDefined);
        g.inputs().forEach(i -> defined.add(i.name()));
        g.initializers().forEach(t -> defined.add(t.name()));
        for (OnnxProto.Node n : g.nodes()) {
            for (String in : n.inputs()) {
                if (!in.isEmpty() && !defined.contains(in)) {
                    out.add(in);
                }
            }
            for (OnnxProto.Attribute a : n.attributes().values()) {
                if (a.g() != null) {
                    collect(a.g(), defined, out);
                }
                for (OnnxProto.Graph sg : a.graphs()) {
                    collect(sg, defined, out);
                }
            }
            defined.addAll(n.outputs());
        }
        for (OnnxProto.ValueInfo o : g.outputs()) {
            if (!defined.contains(o.name())) {
                out.add(o.name());
            }
        }
    }
}
