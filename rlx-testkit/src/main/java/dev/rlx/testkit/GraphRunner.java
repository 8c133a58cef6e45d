package dev.rlx.testkit;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
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
     * Compiles with {@code session}, sets every input and param of {@code g} from {@code data}, runs once and
     * snapshots the outputs. Only the stable public API: compile, setInput/setParam with a tensor, run, outputs.
     */
    static GraphRunner of(Session session) {
        return (g, data) -> {
            try (CompiledGraph c = session.compile(g)) {
                for (Value v : g.inputs()) {
                    c.setInput(g.nameOf(v), data.get(g.nameOf(v)));
                }
                for (Value v : g.params()) {
                    c.setParam(g.nameOf(v), data.get(g.nameOf(v)));
                }
                c.run();
                return c.outputs().stream().map(TensorView::toTensor).toList();
            }
        };
    }
}
