package dev.rlx.onnx;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.limits.Limits;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Computes at import time the values that ONNX passes as tensors but RLX needs as attributes (a Reshape's
 * shape, a Slice's starts, a TopK's k). The ops producing such a value are copied into a small graph and run
 * on the CPU backend's kernels, so the value is exactly what the model would compute at run time.
 */
final class StaticEvaluator {
    /** Thrown when a value depends on a graph input whose value is not bound. */
    static final class NotStatic extends RuntimeException {
        final String input;

        NotStatic(String input) {
            super(null, null, false, false);
            this.input = input;
        }
    }

    private final Map<Value, Tensor> cache = new HashMap<>();
    private final Limits limits;

    StaticEvaluator(Limits limits) {
        this.limits = limits;
    }

    /**
     * The value of {@code v}. {@code sources} gives the value of an Input or Param node by name, or null
     * when it is not known (then {@link NotStatic} is thrown naming it).
     */
    Tensor evaluate(Value v, Function<Node, Tensor> sources) {
        Node producer = v.node();
        if (producer.op() instanceof Op.Constant c) {
            return c.value();
        }
        Tensor cached = cache.get(v);
        if (cached != null) {
            return cached;
        }
        Graph src = v.graph();
        boolean[] cone = new boolean[src.size()];
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(producer);
        cone[producer.id()] = true;
        while (!todo.isEmpty()) {
            for (Value in : todo.pop().inputs()) {
                if (!cone[in.nodeId()]) {
                    cone[in.nodeId()] = true;
                    todo.push(in.node());
                }
            }
        }
        Graph e = new Graph("import_time_value");
        Map<Value, Value> map = new HashMap<>();
        for (Node n : src.nodes()) {
            if (!cone[n.id()]) {
                continue;
            }
            if (n.op() instanceof Op.Input || n.op() instanceof Op.Param) {
                Tensor t = sources.apply(n);
                if (t == null) {
                    throw new NotStatic(n.name());
                }
                map.put(n.output(), e.constant(t));
                continue;
            }
            for (Value out : n.outputs()) { // before anything of that size is computed
                limits.check(Limits.Kind.TENSOR_BYTES, "a value computed at import time (" + n.op().getClass().getSimpleName()
                        + " " + out.shape() + ")", out.shape().byteSize());
            }
            var outs = e.apply(n.op(), n.inputs().stream().map(map::get).toList());
            for (int i = 0; i < outs.size(); i++) {
                map.put(n.outputs().get(i), outs.get(i));
            }
        }
        Value result = map.get(v);
        if (result.node().op() instanceof Op.Constant c) {
            return c.value();
        }
        e.setOutputs(result);
        // No optimisation (folding would recurse) and no cache (these graphs are one-offs).
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withOptimize(false).withThreads(1), null);
             CompiledGraph c = s.compile(e)) {
            c.run();
            Tensor t = c.output(0).toTensor();
            cache.put(v, t);
            return t;
        }
    }
}
