package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Host-driven control flow, for callers that branch or loop in Java around graphs ({@code runIf},
 * {@code runWhile}) rather than with {@code If}/{@code While} nodes inside one graph. Each graph is compiled
 * once per runner (keyed by fingerprint, not name) and reused. Values bind to a graph's inputs by position.
 * Not thread-safe; close it to release the compiled graphs.
 */
public final class SubgraphRunner implements AutoCloseable {
    private final Session session;
    private final Map<String, CompiledGraph> compiled = new HashMap<>();

    public SubgraphRunner(Session session) {
        this.session = session;
    }

    /** Runs {@code thenBranch} if {@code predicate}, else {@code elseBranch}, on {@code inputs}. */
    public List<Tensor> runIf(boolean predicate, Graph thenBranch, Graph elseBranch, List<Tensor> inputs) {
        return run(predicate ? thenBranch : elseBranch, inputs);
    }

    /**
     * {@code while (cond(carries)) carries = body(carries)}; {@code cond} returns one boolean element.
     *
     * @param maxIterations a guard: more iterations than this throw {@link LoopLimitException}; -1 for none
     */
    public List<Tensor> runWhile(Graph cond, Graph body, List<Tensor> initial, long maxIterations) {
        List<Tensor> carries = initial;
        for (long i = 0; ; i++) {
            if (run(cond, carries).get(0).getDouble(0) == 0) {
                return carries;
            }
            if (i == maxIterations) {
                throw new LoopLimitException("runWhile(@" + cond.name() + ", @" + body.name() + ")", maxIterations);
            }
            carries = run(body, carries);
        }
    }

    /** Runs {@code g} on {@code inputs} (by position) and returns its outputs. */
    public List<Tensor> run(Graph g, List<Tensor> inputs) {
        List<Value> declared = g.inputs();
        if (declared.size() != inputs.size()) {
            throw new BindingException("graph @" + g.name() + " takes " + declared.size() + " inputs but " + inputs.size()
                    + " were given");
        }
        CompiledGraph c = compiled.computeIfAbsent(g.fingerprint(), k -> session.compile(g));
        for (int i = 0; i < inputs.size(); i++) {
            c.setInput(g.nameOf(declared.get(i)), inputs.get(i));
        }
        c.run();
        List<Tensor> out = new ArrayList<>();
        for (TensorView v : c.outputs()) {
            out.add(v.toTensor());
        }
        return out;
    }

    @Override
    public void close() {
        compiled.values().forEach(CompiledGraph::close);
        compiled.clear();
    }
}
