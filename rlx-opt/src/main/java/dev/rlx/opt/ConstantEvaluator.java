package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import java.util.List;

/**
 * Runs a graph of constants (no inputs or params) laid out by its memory plan and returns its outputs: how
 * {@link ConstantFolding} computes folded values with a backend's own kernels, so folding never changes
 * numerics. The pipeline is given one (by default the CPU backend's); it must not compile through a session,
 * so folding never re-enters the pipeline.
 */
@FunctionalInterface
public interface ConstantEvaluator {
    List<Tensor> evaluate(Graph constants, MemoryPlan plan);

    /** The nodes it can evaluate; folding leaves every other node to run time. */
    default Capabilities capabilities() {
        return Capabilities.all();
    }
}
