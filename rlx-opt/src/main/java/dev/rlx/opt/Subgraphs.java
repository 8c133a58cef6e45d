package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** The bodies of control-flow ops, and rebuilding a graph with its bodies transformed. */
public final class Subgraphs {
    private Subgraphs() {}

    /** {@code op}'s bodies in a fixed order (If: then, else; While: cond, body; Scan: body); empty for other ops. */
    public static List<Graph> bodies(Op op) {
        return switch (op) {
            case Op.If i -> List.of(i.thenBranch(), i.elseBranch());
            case Op.While w -> List.of(w.cond(), w.body());
            case Op.Scan s -> List.of(s.body());
            default -> List.of();
        };
    }

    /** {@code op} with its bodies replaced, in {@link #bodies} order. */
    public static Op withBodies(Op op, List<Graph> b) {
        return switch (op) {
            case Op.If i -> new Op.If(b.get(0), b.get(1));
            case Op.While w -> new Op.While(b.get(0), b.get(1), w.maxIterations());
            case Op.Scan s -> new Op.Scan(b.get(0), s.length(), s.numCarries(), s.reverse());
            default -> throw new IllegalArgumentException(op.label() + " has no bodies");
        };
    }

    /**
     * {@code g} with {@code f} applied to the bodies of its control-flow nodes (not recursively: {@code f}
     * descends itself if it should); {@code g} itself when no body changed.
     */
    public static Graph mapBodies(Graph g, UnaryOperator<Graph> f) {
        boolean any = false;
        for (Node n : g.nodes()) {
            any |= !bodies(n.op()).isEmpty();
        }
        if (!any) {
            return g;
        }
        return Rewriter.rewrite(g, (n, r) -> {
            List<Graph> old = bodies(n.op());
            if (old.isEmpty()) {
                r.copy(n);
                return;
            }
            List<Graph> mapped = new ArrayList<>(old.size());
            boolean changed = false;
            for (Graph b : old) {
                Graph m = f.apply(b);
                mapped.add(m);
                changed |= m != b;
            }
            if (!changed) {
                r.copy(n);
                return;
            }
            List<dev.rlx.ir.Value> outs = r.emit(withBodies(n.op(), mapped), r.get(n.inputs()));
            if (n.name() != null) {
                r.graph().name(outs.get(0), n.name());
            }
            r.replace(n, outs);
        });
    }
}
