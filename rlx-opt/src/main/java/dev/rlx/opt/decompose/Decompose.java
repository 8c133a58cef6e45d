package dev.rlx.opt.decompose;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.Pass;
import dev.rlx.opt.Rewriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Rewrites every node the target refuses into ops that compute the same thing, when such a decomposition
 * exists, and repeats on what it emitted until every node is claimed or has none (an attention becomes
 * matmuls and a softmax; the softmax, if refused too, becomes reductions and element-wise ops). Nodes refused
 * with no decomposition are left as they are, for the runtime to report. With
 * {@link Capabilities#primitives()} as the target, every composite and fusion product ends as
 * {@link dev.rlx.opt.Primitives}.
 *
 * <p>A refused node on F16/BF16 data whose F32 form the target claims, or whose decomposition would round
 * intermediate values to half, runs as cast to F32, the op (then decomposed in F32 if need be), cast back:
 * widening is exact, so results are rounded once, at the output, as the CPU kernels compute half tensors.
 * This needs the target to claim those casts; without them a composite decomposes in its own half dtype.
 *
 * <p>Works on one graph level: the bodies of If, While and Scan nodes are left alone (the pipeline applies
 * passes to bodies itself). A decomposed node's display name moves to the value that replaces its (first)
 * output; inputs, params and the graph's outputs keep their names, shapes and dtypes. Returns the input graph
 * itself when no node is rewritten. Immutable and thread-safe when the target is.
 */
public final class Decompose implements Pass {
    /**
     * Far more rounds than the deepest chain can take (half attention: widened, decomposed, its softmax and
     * transposed matmul decomposed, its activations...): reaching it means a decomposition emits what it
     * decomposes, a bug.
     */
    private static final int MAX_ROUNDS = 16;

    private final Capabilities target;

    /** Decomposes what {@code target} refuses. */
    public Decompose(Capabilities target) {
        this.target = Objects.requireNonNull(target, "target");
    }

    @Override
    public String name() {
        return "decompose";
    }

    @Override
    public Graph apply(Graph g) {
        Graph cur = g;
        for (int round = 0; ; round++) {
            Map<Node, Decomposition> plan = plan(cur);
            if (plan.isEmpty()) {
                return cur;
            }
            if (round == MAX_ROUNDS) {
                throw new IllegalStateException("decompose: @" + g.name() + " still has nodes to rewrite after "
                        + MAX_ROUNDS + " rounds: " + plan.keySet());
            }
            cur = Rewriter.rewrite(cur, (n, r) -> {
                Decomposition d = plan.get(n);
                if (d == null) {
                    r.copy(n);
                    return;
                }
                List<Value> outs = d.apply(n, r);
                r.replace(n, outs);
                keepName(n, outs.get(0), r.graph());
            });
        }
    }

    /** The rewrite of every node of {@code g} this round changes. */
    private Map<Node, Decomposition> plan(Graph g) {
        Map<Node, Decomposition> plan = new LinkedHashMap<>(); // in node order, for the error message
        for (Node n : g.nodes()) {
            Decomposition d = rewriteOf(n);
            if (d != null) {
                plan.put(n, d);
            }
        }
        return plan;
    }

    /** How to rewrite {@code n}, or null to keep it (claimed, or refused with no way around). */
    private Decomposition rewriteOf(Node n) {
        if (target.claims(n)) {
            return null;
        }
        Decomposition d = Decompositions.of(n);
        boolean decomposesInF32 = d != null && !Decompositions.keepsHalf(n.op());
        if (HalfFallback.applies(n, target, decomposesInF32)) {
            return HalfFallback::apply;
        }
        return d;
    }

    /** Moves {@code n}'s display name to {@code v}, unless v is a source or already has a name of its own. */
    private static void keepName(Node n, Value v, Graph out) {
        String name = n.name();
        Op op = v.node().op();
        if (name != null && !(op instanceof Op.Input || op instanceof Op.Param) && out.nameOf(v) == null) {
            out.name(v, name);
        }
    }
}
