package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import java.util.List;

/**
 * Runs a graph with no inputs or params and returns its outputs: how {@link ConstantFolding} computes
 * folded values with the runtime's own kernels (so folding never changes numerics).
 */
@FunctionalInterface
public interface ConstantEvaluator {
    List<Tensor> evaluate(Graph g);
}
