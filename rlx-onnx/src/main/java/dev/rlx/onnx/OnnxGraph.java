package dev.rlx.onnx;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import java.util.List;
import java.util.Map;

/**
 * An imported ONNX model for one binding of its input shapes: the IR graph (inputs named as in the model,
 * outputs in the model's order), its weights (the large float initializers, as params), and the inputs
 * whose values were needed at import time and are now built in.
 *
 * @param graph the graph; its inputs are the model's inputs, its params the weights
 * @param weights param name to value
 * @param outputNames the model's output names, in the graph's output order
 * @param frozenInputs inputs whose values decided shapes or attributes; running with other values needs a
 *     new import
 */
public record OnnxGraph(Graph graph, Map<String, Tensor> weights, List<String> outputNames,
                        Map<String, Tensor> frozenInputs) {
    public OnnxGraph {
        weights = Map.copyOf(weights);
        outputNames = List.copyOf(outputNames);
        frozenInputs = Map.copyOf(frozenInputs);
    }

    /** Compiles the graph on {@code session} with a weight set of its own, and sets its weights. */
    public CompiledGraph compile(Session session) {
        return compile(session, session.defaults(), null);
    }

    /**
     * Compiles the graph on {@code session} against {@code weights} (null: a set of its own) and uploads each of
     * its weights that the set does not hold yet, so graphs of one model share one copy (see {@link OnnxRunner}).
     */
    public CompiledGraph compile(Session session, CompileOptions options, WeightSet weights) {
        CompiledGraph c = session.compile(graph, options, weights);
        try {
            WeightSet w = c.weights();
            for (String p : c.paramNames()) {
                if (!w.isSet(p)) {
                    w.set(p, this.weights.get(p));
                }
            }
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }
}
