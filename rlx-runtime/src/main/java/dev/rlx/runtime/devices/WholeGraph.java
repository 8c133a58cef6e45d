package dev.rlx.runtime.devices;

import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import java.util.List;
import java.util.Map;

/** A {@link DeviceGraph} that is one {@link CompiledGraph}. */
public final class WholeGraph implements DeviceGraph {
    private final CompiledGraph compiled;

    public WholeGraph(CompiledGraph compiled) {
        this.compiled = compiled;
    }

    /** The compiled graph (for the allocation-free calls, streams and pipelining). */
    public CompiledGraph compiled() {
        return compiled;
    }

    @Override
    public Device device() {
        return compiled.device();
    }

    @Override
    public PartitionSummary partition() {
        return null;
    }

    @Override
    public List<String> inputNames() {
        return compiled.inputNames();
    }

    @Override
    public List<String> paramNames() {
        return compiled.paramNames();
    }

    @Override
    public void setParam(String name, Tensor value) {
        compiled.setParam(name, value);
    }

    @Override
    public List<float[]> run(Map<String, float[]> inputs) {
        return compiled.run(inputs);
    }

    @Override
    public List<Tensor> runTyped(Map<String, Tensor> inputs) {
        return compiled.runTyped(inputs);
    }

    @Override
    public void close() {
        compiled.close();
    }
}
