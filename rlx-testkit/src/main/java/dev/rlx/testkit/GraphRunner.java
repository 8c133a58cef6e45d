package dev.rlx.testkit;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.TensorView;
import java.util.List;
import java.util.Map;

/** Runs a graph once on named data and returns its outputs: what the harness compares with the reference. */
@FunctionalInterface
public interface GraphRunner {
    List<Tensor> run(Graph g, Map<String, Tensor> data);

    /**
     * Compiles with {@code session}, sets every input and param the compiled graph has from {@code data}, runs
     * once and snapshots the outputs. Public API only: compile, setInput/setParam, run, outputs.
     */
    static GraphRunner of(Session session) {
        return (g, data) -> {
            try (CompiledGraph c = session.compile(g)) {
                for (String n : c.inputNames()) {
                    c.setInput(n, data.get(n));
                }
                for (String n : c.paramNames()) {
                    c.setParam(n, data.get(n));
                }
                c.run();
                return c.outputs().stream().map(TensorView::toTensor).toList();
            }
        };
    }
}
