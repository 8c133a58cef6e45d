package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.Subgraphs;
import dev.rlx.opt.decompose.Decompose;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds the nodes of a graph (bodies included) a backend cannot run: refused by its capabilities with no
 * decomposition into nodes it claims, or custom ops with no kernel for its device. The same rules the compile
 * pipeline applies, asked one node at a time so each offender is the caller's own node.
 */
final class Legalizer {
    private Legalizer() {}

    static List<UnsupportedOpException.Offender> offenders(Graph g, Capabilities caps, Device device, OpRegistry ops) {
        List<UnsupportedOpException.Offender> out = new ArrayList<>();
        collect(g, "", caps, device, ops, out);
        return out;
    }

    /** Throws {@link UnsupportedOpException} listing every offender. */
    static void check(Graph g, String backendName, Capabilities caps, Device device, OpRegistry ops) {
        List<UnsupportedOpException.Offender> offenders = offenders(g, caps, device, ops);
        if (!offenders.isEmpty()) {
            throw new UnsupportedOpException(backendName, offenders);
        }
    }

    private static void collect(Graph g, String path, Capabilities caps, Device device, OpRegistry ops,
                                List<UnsupportedOpException.Offender> out) {
        for (Node n : g.nodes()) {
            String name = n.name() != null ? n.name() : n.op().label();
            String reason = n.op() instanceof Op.Custom c && ops.kernel(c.name(), device).isEmpty()
                    ? "no kernel for custom op '" + c.name() + "' on " + device
                    : refusal(n, caps);
            if (reason != null) {
                out.add(new UnsupportedOpException.Offender(path, n.id(), n.kind(), name, reason));
            }
            List<Graph> bodies = Subgraphs.bodies(n.op());
            for (int i = 0; i < bodies.size(); i++) {
                collect(bodies.get(i), path + "%" + n.id() + "." + bodyName(n.op(), i) + "/", caps, device, ops, out);
            }
        }
    }

    /** Null when {@code caps} claims {@code n} or it decomposes into claimed nodes; else why not. */
    static String refusal(Node n, Capabilities caps) {
        String direct = caps.refusal(n);
        if (direct == null) {
            return null;
        }
        Graph alone = alone(n);
        Graph decomposed = new Decompose(caps).apply(alone);
        if (decomposed == alone) {
            return direct;
        }
        Set<String> left = new LinkedHashSet<>();
        for (Node d : decomposed.nodes()) {
            String r = caps.refusal(d);
            if (r != null) {
                left.add(d.op().label() + ": " + r);
            }
        }
        return left.isEmpty() ? null : direct + "; its decomposition needs " + String.join(", ", left);
    }

    /** {@code n} applied to fresh inputs of its operands' shapes: the node on its own, to decompose. */
    private static Graph alone(Node n) {
        Graph g = new Graph("legalize_" + n.op().label());
        List<Value> in = new ArrayList<>();
        for (int i = 0; i < n.inputs().size(); i++) {
            in.add(g.input("in" + i, n.inputs().get(i).shape()));
        }
        g.setOutputs(g.apply(n.op(), in));
        return g;
    }

    private static String bodyName(Op op, int i) {
        return switch (op) {
            case Op.If f -> i == 0 ? "then" : "else";
            case Op.While w -> i == 0 ? "cond" : "body";
            default -> "body";
        };
    }
}
