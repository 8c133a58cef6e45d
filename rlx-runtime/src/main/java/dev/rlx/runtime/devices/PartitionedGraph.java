package dev.rlx.runtime.devices;

import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.runtime.BindingException;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A graph split between a device and the CPU ({@link Partitioner}), run as one: each segment is a
 * {@link CompiledGraph} on its device, the values crossing a cut are read back from the segment that makes them and
 * written into the ones that read them. Params go to every segment that reads them (through each device's weight
 * set); inputs to every segment that reads them.
 */
public final class PartitionedGraph implements DeviceGraph {
    private final Device device;
    private final PartitionSummary summary;
    private final List<PartitionPlan.Built> parts;
    private final List<CompiledGraph> compiled;
    private final List<Value> graphOutputs;
    private final List<String> inputNames;
    private final List<String> paramNames;

    /**
     * Compiles each segment of {@code plan} with {@code sessions}, its params bound to {@code weights} of its
     * device (null: each segment its own).
     */
    public PartitionedGraph(PartitionPlan plan, Function<Device, Session> sessions, Function<Device, WeightSet> weights) {
        this.device = plan.device();
        this.summary = plan.summary();
        this.parts = plan.build();
        this.graphOutputs = plan.graph().outputs();
        List<CompiledGraph> cs = new ArrayList<>();
        try {
            for (PartitionPlan.Built b : parts) {
                WeightSet w = weights == null ? null : weights.apply(b.device());
                Session s = sessions.apply(b.device());
                cs.add(w == null ? s.compile(b.graph()) : s.compile(b.graph(), w));
            }
        } catch (RuntimeException e) {
            cs.forEach(CompiledGraph::close);
            throw e;
        }
        this.compiled = List.copyOf(cs);
        this.inputNames = plan.graph().inputs().stream().map(v -> plan.graph().nameOf(v)).toList();
        this.paramNames = plan.graph().params().stream().map(v -> plan.graph().nameOf(v)).toList();
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public PartitionSummary partition() {
        return summary;
    }

    /** The devices of the segments, in run order. */
    public List<Device> segmentDevices() {
        return parts.stream().map(PartitionPlan.Built::device).toList();
    }

    @Override
    public List<String> inputNames() {
        return inputNames;
    }

    @Override
    public List<String> paramNames() {
        return paramNames;
    }

    @Override
    public void setParam(String name, Tensor value) {
        if (!paramNames.contains(name)) {
            throw new BindingException("graph has no param '" + name + "'; its params are " + paramNames);
        }
        Set<WeightSet> done = new java.util.HashSet<>();
        for (CompiledGraph c : compiled) {
            if (c.paramNames().contains(name) && done.add(c.weights())) {
                c.setParam(name, value);
            }
        }
    }

    @Override
    public List<float[]> run(Map<String, float[]> inputs) {
        Map<String, Tensor> typed = new HashMap<>();
        for (Map.Entry<String, float[]> e : inputs.entrySet()) {
            typed.put(e.getKey(), Tensor.of(e.getValue(), shapeOf(e.getKey(), e.getValue().length)));
        }
        return runTyped(typed).stream().map(Tensor::toFloatArray).toList();
    }

    private int[] shapeOf(String input, int given) {
        for (CompiledGraph c : compiled) {
            if (c.inputNames().contains(input)) {
                return c.inputShape(input).dims();
            }
        }
        throw new BindingException("graph has no input '" + input + "'; its inputs are " + inputNames);
    }

    @Override
    public List<Tensor> runTyped(Map<String, Tensor> inputs) {
        for (String name : inputs.keySet()) {
            if (!inputNames.contains(name)) {
                throw new BindingException("graph has no input '" + name + "'; its inputs are " + inputNames);
            }
        }
        Map<Value, Tensor> produced = new HashMap<>();
        for (int s = 0; s < parts.size(); s++) {
            PartitionPlan.Built b = parts.get(s);
            CompiledGraph c = compiled.get(s);
            Map<String, Tensor> in = new HashMap<>();
            for (String name : c.inputNames()) {
                Value cut = b.cutIn().get(name);
                if (cut != null) {
                    in.put(name, produced.get(cut));
                } else if (inputs.containsKey(name)) {
                    in.put(name, inputs.get(name));
                }
            }
            List<Tensor> out = c.runTyped(in);
            for (int i = 0; i < out.size(); i++) {
                produced.put(b.outputs().get(i), out.get(i));
            }
        }
        List<Tensor> result = new ArrayList<>(graphOutputs.size());
        for (Value v : graphOutputs) {
            result.add(produced.get(v));
        }
        return result;
    }

    @Override
    public void close() {
        Set<CompiledGraph> all = new LinkedHashSet<>(compiled);
        all.forEach(CompiledGraph::close);
    }
}
