package dev.rlx.opt.decompose;

import dev.rlx.ir.Node;
import dev.rlx.ir.Value;
import dev.rlx.opt.Rewriter;
import java.util.List;

/**
 * Emits, into the graph {@code r} is building, ops that compute what node {@code n} computes from its operands
 * ({@code r.get(n.inputs())}), and returns the values that stand for {@code n}'s outputs, in order, with the
 * same shapes and dtypes. Built with the {@link dev.rlx.ir.Graph} builders, so every emitted shape re-checks.
 */
@FunctionalInterface
interface Decomposition {
    List<Value> apply(Node n, Rewriter r);
}
