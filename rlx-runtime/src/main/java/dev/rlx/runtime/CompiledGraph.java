package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.spi.Executable;
import dev.rlx.runtime.weights.WeightLoader;
import dev.rlx.runtime.weights.WeightTensor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A graph compiled for one device: it owns the executable, the arena holding every input, param,
 * intermediate and output, and the device handle.
 *
 * <pre>{@code
 * c.setParam("w", weights);          // once
 * c.setInput("x", xs);               // sticky until set again
 * c.run();                           // no allocation per call
 * c.output(0).copyTo(dst);
 * }</pre>
 *
 * <p>Data setters accept float and double arrays for float-typed slots (converted to the slot's float type),
 * int and long arrays for integer slots (range-checked), boolean arrays for BOOL, and raw little-endian
 * bytes of the slot's dtype as a {@link MemorySegment}. A wrong name, element count or type throws
 * {@link BindingException} naming the slot, its shape and what was given, and changes nothing.
 *
 * <p>Not thread-safe: use one compiled graph per thread (compile again for more). Close it to release the
 * arena.
 */
public final class CompiledGraph implements AutoCloseable {
    private final Device device;
    private final Graph graph;
    private final MemoryPlan plan;
    private final Executable exe;
    private final Map<String, Binding> inputs = new LinkedHashMap<>();
    private final Map<String, Binding> params = new LinkedHashMap<>();
    private final Binding[] all;
    private final TensorView[] outputs;
    private boolean closed;

    CompiledGraph(Device device, Graph graph, MemoryPlan plan, Executable exe) {
        this.device = device;
        this.graph = graph;
        this.plan = plan;
        this.exe = exe;
        for (Value v : graph.inputs()) {
            String n = graph.nameOf(v);
            inputs.put(n, new Binding("input", n, v, exe));
        }
        for (Value v : graph.params()) {
            String n = graph.nameOf(v);
            params.put(n, new Binding("param", n, v, exe));
        }
        List<Binding> b = new ArrayList<>(inputs.values());
        b.addAll(params.values());
        all = b.toArray(Binding[]::new);
        outputs = new TensorView[graph.outputs().size()];
        for (int i = 0; i < outputs.length; i++) {
            Value v = graph.outputs().get(i);
            outputs[i] = new TensorView("output " + i, v.shape(), exe, v, this::open);
        }
    }

    public Device device() {
        open();
        return device;
    }

    /** The graph as compiled (after optimisation passes). */
    public Graph graph() {
        open();
        return graph;
    }

    // ---------------------------------------------------------------- inputs

    private Binding input(String name) {
        Binding b = inputs.get(name);
        if (b == null) {
            throw new BindingException(graphName() + " has no input '" + name + "'; its inputs are " + inputs.keySet());
        }
        return b;
    }

    private Binding param(String name) {
        Binding b = params.get(name);
        if (b == null) {
            throw new BindingException(graphName() + " has no param '" + name + "'; its params are " + params.keySet());
        }
        return b;
    }

    private String graphName() {
        return "graph @" + graph.name();
    }

    /** Sets input {@code name}; it keeps this value for every run until set again. */
    public void setInput(String name, float[] data) { open(); input(name).set(data); }

    public void setInput(String name, double[] data) { open(); input(name).set(data); }

    public void setInput(String name, int[] data) { open(); input(name).set(data); }

    public void setInput(String name, long[] data) { open(); input(name).set(data); }

    public void setInput(String name, boolean[] data) { open(); input(name).set(data); }

    /** Sets input {@code name} from raw little-endian bytes of its dtype. */
    public void setInput(String name, MemorySegment bytes) { open(); input(name).setBytes(bytes); }

    /** Sets input {@code name} from a tensor of the same shape (dtype converted as for arrays). */
    public void setInput(String name, Tensor t) { open(); setTensor(input(name), t); }

    // ---------------------------------------------------------------- params

    public void setParam(String name, float[] data) { open(); param(name).set(data); }

    public void setParam(String name, double[] data) { open(); param(name).set(data); }

    public void setParam(String name, int[] data) { open(); param(name).set(data); }

    public void setParam(String name, long[] data) { open(); param(name).set(data); }

    public void setParam(String name, boolean[] data) { open(); param(name).set(data); }

    public void setParam(String name, MemorySegment bytes) { open(); param(name).setBytes(bytes); }

    public void setParam(String name, Tensor t) { open(); setTensor(param(name), t); }

    /** Sets param {@code name} from the loader's tensor of the same name. */
    public void setParam(String name, WeightLoader loader) {
        open();
        Binding b = param(name);
        WeightTensor t = loader.tensor(name).orElseThrow(() -> new BindingException(
                "the weight source has no tensor '" + name + "' for param " + name + " " + b.shape));
        setWeight(b, t);
    }

    /**
     * Sets every param whose name the loader has; returns the names set. Params the loader lacks are left
     * as they are (and {@link #run()} reports any never set).
     */
    public List<String> setParams(WeightLoader loader) {
        open();
        List<String> set = new ArrayList<>();
        for (Binding b : params.values()) {
            var t = loader.tensor(b.name);
            if (t.isPresent()) {
                setWeight(b, t.get());
                set.add(b.name);
            }
        }
        return set;
    }

    private static void setWeight(Binding b, WeightTensor t) {
        if (!t.shape().sameDims(b.shape)) {
            throw new BindingException("param '" + b.name + "' is " + b.shape + " but weight '" + t.name() + "' is "
                    + t.shape());
        }
        b.setConverted(t.data(), t.shape().dtype());
    }

    private static void setTensor(Binding b, Tensor t) {
        if (!t.shape().sameDims(b.shape)) {
            throw new BindingException(b.kind + " '" + b.name + "' is " + b.shape + " but the tensor is " + t.shape());
        }
        b.setConverted(MemorySegment.ofArray(t.bytes()), t.dtype());
    }

    // ---------------------------------------------------------------- running

    /**
     * Runs the graph on the current inputs and params. Allocation-free.
     *
     * @throws BindingException if an input or param was never set
     */
    public void run() {
        open();
        for (Binding b : all) {
            if (!b.isSet) {
                throw unset(b);
            }
        }
        exe.run();
    }

    private BindingException unset(Binding b) {
        return new BindingException(graphName() + ": " + b.kind + " '" + b.name + "' " + b.shape
                + " has not been set (call set" + (b.kind.equals("input") ? "Input" : "Param") + ")");
    }

    /**
     * Convenience: sets the given inputs, runs, and returns output 0 as a new array. Inputs not in the map
     * keep their previous values. Every entry, and that every input and param is then set, is checked before
     * anything is written, so a rejected call changes nothing.
     */
    public float[] run(Map<String, float[]> in) {
        open();
        Map<Binding, float[]> checked = new HashMap<>();
        for (Map.Entry<String, float[]> e : in.entrySet()) {
            Binding b = input(e.getKey());
            b.check(e.getValue());
            checked.put(b, e.getValue());
        }
        for (Binding b : all) {
            if (!b.isSet && !checked.containsKey(b)) {
                throw unset(b);
            }
        }
        checked.forEach(Binding::set);
        run();
        return outputs[0].toFloatArray();
    }

    /**
     * Re-seeds the graph's random-number ops and restarts their streams (see {@link RngOptions}), without
     * recompiling. The next run draws what the first run after compiling with {@code rng} would draw.
     */
    public void setRng(RngOptions rng) {
        open();
        exe.setRng(java.util.Objects.requireNonNull(rng, "rng"));
    }

    /** Output {@code i} of the last run, as a view created at compile time. */
    public TensorView output(int i) {
        open();
        if (i < 0 || i >= outputs.length) {
            throw new BindingException(graphName() + " has " + outputs.length + " output" + (outputs.length == 1 ? "" : "s")
                    + "; there is no output " + i);
        }
        return outputs[i];
    }

    public int outputCount() {
        open();
        return outputs.length;
    }

    public List<TensorView> outputs() {
        open();
        return List.of(outputs);
    }

    // ---------------------------------------------------------------- metadata

    public List<String> inputNames() {
        open();
        return List.copyOf(inputs.keySet());
    }

    public List<String> paramNames() {
        open();
        return List.copyOf(params.keySet());
    }

    public Shape inputShape(String name) {
        open();
        return input(name).shape;
    }

    public Shape paramShape(String name) {
        open();
        return param(name).shape;
    }

    /** Bytes of the arena: every input, param, constant, intermediate and output, with reuse. */
    public long arenaBytes() {
        open();
        return plan.arenaBytes();
    }

    /** What the arena would take with no buffer reuse. */
    public long unsharedBytes() {
        open();
        return plan.unsharedBytes();
    }

    /** Kernels run per call. */
    public int kernelCount() {
        open();
        return exe.kernelCount();
    }

    /** The memory plan as text: one line per buffer, then totals. */
    public String memoryReport() {
        open();
        return plan.report();
    }

    List<String> unsetNames() {
        List<String> out = new ArrayList<>();
        for (Binding b : all) {
            if (!b.isSet) {
                out.add(b.name);
            }
        }
        return Collections.unmodifiableList(out);
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException(graphName() + " compiled for " + device + " is closed");
        }
    }

    /**
     * Releases the arena and kernels. Further calls (here and on its output views; {@code close} excepted)
     * throw {@link IllegalStateException}.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            exe.close();
        }
    }
}
