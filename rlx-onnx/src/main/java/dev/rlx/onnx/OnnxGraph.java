package dev.rlx.onnx;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Session;
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

    /** Compiles the graph on {@code session} and sets its weights. */
    public CompiledGraph compile(Session session) {
        CompiledGraph c = session.compile(graph);
        try {
            for (String p : c.paramNames()) {
                c.setParam(p, weights.get(p));
            }
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }
}
