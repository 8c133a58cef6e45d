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
 */
public record CompileRequest(Graph graph, MemoryPlan plan, CompileOptions options, OpRegistry ops,
                             Map<Value, DeviceBuffer> params) {
    public CompileRequest {
        params = Map.copyOf(params);
    }
}
