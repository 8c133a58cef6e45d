package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.opt.ConstantEvaluator;
import java.util.ArrayList;
import java.util.List;

/**
 * Folds constants by running them on the CPU backend's kernels, so a folded value is exactly what the
 * kernel would have computed at run time on the CPU. Used only when a CPU backend is on the class path.
 */
final class KernelConstantEvaluator implements ConstantEvaluator {
    static ConstantEvaluator ifAvailable() {
        return BackendRegistry.global().isAvailable(Device.CPU) ? new KernelConstantEvaluator() : null;
    }

    @Override
    public List<Tensor> evaluate(Graph g) {
        return Tracer.untraced(() -> run(g));
    }

    private static List<Tensor> run(Graph g) {
        // No optimisation here: folding must not recurse into folding.
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withOptimize(false));
             CompiledGraph c = s.compile(g)) {
            c.run();
            List<Tensor> out = new ArrayList<>();
            for (TensorView v : c.outputs()) {
                out.add(v.toTensor());
            }
            return out;
        }
    }
}
