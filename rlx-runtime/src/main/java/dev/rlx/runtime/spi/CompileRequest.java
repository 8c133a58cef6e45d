package dev.rlx.runtime.spi;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Value;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.OpRegistry;
import java.util.Map;

/**
 * What a backend compiles: the optimised graph (every node claimed by the backend), its memory plan (bodies
 * of control-flow nodes included), the options, the registry to find custom-op kernels in, and the device
 * buffer bound to each of the graph's params (owned by a weight set, shared with other executables).
 * {@code weightCopies} holds, for each param whose bytes change only through the runtime's setters, its copies in
 * backends' own layouts, shared with every other executable that reads the weight, and how often it has been
 * written ({@link WeightCopies#writes()}); a param without one (memory bound by reference, which its owner fills)
 * may change between any two runs.
 */
public record CompileRequest(Graph graph, MemoryPlan plan, CompileOptions options, OpRegistry ops,
                             Map<Value, DeviceBuffer> params, Map<Value, WeightCopies> weightCopies) {
    public CompileRequest {
        params = Map.copyOf(params);
        weightCopies = Map.copyOf(weightCopies);
    }

    /** A request whose params have no copies: every param may change between runs. */
    public CompileRequest(Graph graph, MemoryPlan plan, CompileOptions options, OpRegistry ops,
                          Map<Value, DeviceBuffer> params) {
        this(graph, plan, options, ops, params, Map.of());
    }
}
