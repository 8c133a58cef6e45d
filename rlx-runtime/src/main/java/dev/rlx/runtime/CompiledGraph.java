package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.limits.Limits;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.Executable;
import dev.rlx.runtime.spi.WeightCopies;
import dev.rlx.runtime.weights.WeightLoader;
import dev.rlx.runtime.weights.WeightTensor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A graph compiled for one device: it owns the executable (kernels, activation arena, constant pool) and reads
 * its params from a {@link WeightSet}, by reference.
 *
 * <pre>{@code
 * c.setParam("w", weights);          // once (writes the weight set: see below)
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
 * <p>Params: {@code setParam} writes through to the graph's weight set, so every graph sharing that set (those
 * compiled against it, and every {@link #copy()}) sees the new weight; change weights only while none of them
 * runs. A graph compiled without a set has one of its own.
 *
 * <p>One thread at a time: use one compiled graph per thread ({@link #copy()} makes another that shares the
 * weights). A second thread calling {@code run}, {@code submit}, a setter or an output view while one runs the
 * graph gets {@link ConcurrentUseException} (one compare-and-set per run detects it), never the other's results.
 *
 * <p>Close it to release the arena. A graph dropped without {@code close()} is released when it becomes
 * unreachable (a {@link Cleaner}), with a warning, once per process, that a graph was not closed.
 *
 * <p>Limits: before anything is allocated, the plan's arena is checked against {@link Limits#arenaBytes()} and
 * each input against {@link Limits#tensorBytes()} of the compile's {@link CompileOptions#limits()}: too large
 * is a {@link dev.rlx.ir.limits.LimitExceededException} naming the graph and the bytes.
 */
public final class CompiledGraph implements AutoCloseable {
    private final Device device;
    private final Backend backend;
    private final Program program;
    private final CompileOptions options;
    private final WeightSet weights;
    private final Map<Value, WeightSet.Entry> bound; // param value -> its weight
    private final boolean ownsWeights;
    private final Executable exe;
    private final CommandStream stream;
    private final Map<String, Binding> inputs = new LinkedHashMap<>();
    private final Map<String, Binding> params = new LinkedHashMap<>();
    private final Binding[] inputByPosition;
    private final Binding[] all;
    private final TensorView[] outputs;
    private final GraphResources resources;
    private final Cleaner.Cleanable cleanable;
    private volatile Thread owner; // the thread running the graph now, or null
    private boolean closed;

    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(CompiledGraph.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Builds {@code program}'s executable with its params bound to {@code bound}, entries of {@code weights}
     * already acquired for this graph (it releases them at close, or here if building fails);
     * {@code ownsWeights} closes the set once no graph uses it.
     */
    CompiledGraph(Backend backend, Program program, CompileOptions options, WeightSet weights,
                  Map<Value, WeightSet.Entry> bound, boolean ownsWeights) {
        this.device = backend.device();
        this.backend = backend;
        this.program = program;
        this.options = options;
        this.weights = weights;
        this.bound = bound;
        this.ownsWeights = ownsWeights;
        Graph graph = program.graph();
        Executable built = null;
        try {
            checkLimits(graph, program.plan(), options.limits());
            Map<Value, DeviceBuffer> buffers = new IdentityHashMap<>();
            Map<Value, WeightCopies> copies = new IdentityHashMap<>();
            bound.forEach((v, e) -> {
                buffers.put(v, e.buffer);
                if (e.copies != null) {
                    copies.put(v, e.copies);
                }
            });
            built = backend.compile(new CompileRequest(graph, program.plan(), options, OpRegistry.global(), buffers,
                    copies));
            this.exe = built;
            this.stream = backend.runtime().newStream();
            for (Value v : graph.inputs()) {
                String n = graph.nameOf(v);
                Executable x = built;
                inputs.put(n, new Binding("input", n, v.shape(), built.hostSlot(v), staged -> x.write(v, staged)));
            }
            for (Value v : graph.params()) {
                params.put(graph.nameOf(v), bound.get(v).binding);
            }
        } catch (RuntimeException e) {
            if (built != null) {
                built.close();
            }
            GraphResources.release(weights, ownsWeights);
            throw e;
        }
        inputByPosition = inputs.values().toArray(Binding[]::new);
        List<Binding> b = new ArrayList<>(inputs.values());
        b.addAll(params.values());
        all = b.toArray(Binding[]::new);
        outputs = new TensorView[graph.outputs().size()];
        for (int i = 0; i < outputs.length; i++) {
            Value v = graph.outputs().get(i);
            outputs[i] = new TensorView("output " + i, v.shape(), exe, v, this::openIdle);
        }
        resources = new GraphResources(graph.name(), exe, stream, weights, ownsWeights);
        cleanable = GraphResources.CLEANER.register(this, resources);
        CompileLog.instantiated(graph.name(), backend.name(), exe.kernelCount(), exe.deviceBytes(), weights);
    }

    /** The arena and every input checked against {@code limits} before anything is allocated. */
    private static void checkLimits(Graph graph, MemoryPlan plan, Limits limits) {
        limits.check(Limits.Kind.ARENA_BYTES, "the activation arena of graph @" + graph.name(), plan.arenaBytes());
        for (Value v : graph.inputs()) {
            limits.check(Limits.Kind.TENSOR_BYTES, "input '" + graph.nameOf(v) + "' " + v.shape() + " of graph @"
                    + graph.name(), bytesOf(v.shape()));
        }
    }

    /** {@code shape}'s bytes, or -1 when that overflows a long. */
    static long bytesOf(Shape shape) {
        try {
            return Math.multiplyExact(shape.elementCount(), (long) shape.dtype().byteSize());
        } catch (ArithmeticException | dev.rlx.ir.ShapeException e) {
            return -1;
        }
    }

    public Device device() {
        open();
        return device;
    }

    /** The graph as compiled (after optimisation passes). */
    public Graph graph() {
        open();
        return program.graph();
    }

    /** The weight set this graph reads its params from (shared, or its own). */
    public WeightSet weights() {
        open();
        return weights;
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
        return "graph @" + program.graph().name();
    }

    /** Sets input {@code name}; it keeps this value for every run until set again. */
    public void setInput(String name, float[] data) { openIdle(); input(name).set(data); }

    public void setInput(String name, double[] data) { openIdle(); input(name).set(data); }

    public void setInput(String name, int[] data) { openIdle(); input(name).set(data); }

    public void setInput(String name, long[] data) { openIdle(); input(name).set(data); }

    public void setInput(String name, boolean[] data) { openIdle(); input(name).set(data); }

    /** Sets input {@code name} from raw little-endian bytes of its dtype. */
    public void setInput(String name, MemorySegment bytes) { openIdle(); input(name).setBytes(bytes); }

    /** Sets input {@code name} from a tensor of the same shape (dtype converted as for arrays). */
    public void setInput(String name, Tensor t) { openIdle(); setTensor(input(name), t); }

    // ---------------------------------------------------------------- params (write through to the weight set)

    public void setParam(String name, float[] data) { openIdle(); param(name).set(data); }

    public void setParam(String name, double[] data) { openIdle(); param(name).set(data); }

    public void setParam(String name, int[] data) { openIdle(); param(name).set(data); }

    public void setParam(String name, long[] data) { openIdle(); param(name).set(data); }

    public void setParam(String name, boolean[] data) { openIdle(); param(name).set(data); }

    public void setParam(String name, MemorySegment bytes) { openIdle(); param(name).setBytes(bytes); }

    public void setParam(String name, Tensor t) { openIdle(); setTensor(param(name), t); }

    /** Sets param {@code name} from the loader's tensor of the same name. */
    public void setParam(String name, WeightLoader loader) {
        openIdle();
        Binding b = param(name);
        WeightTensor t = loader.tensor(name).orElseThrow(() -> new BindingException(
                "the weight source has no tensor '" + name + "' for param " + name + " " + b.shape));
        weights.setFrom(name, t);
    }

    /**
     * Sets every param whose name the loader has; returns the names set. Params the loader lacks are left
     * as they are (and {@link #run()} reports any never set).
     */
    public List<String> setParams(WeightLoader loader) {
        openIdle();
        List<String> set = new ArrayList<>();
        for (String name : params.keySet()) {
            var t = loader.tensor(name);
            if (t.isPresent()) {
                weights.setFrom(name, t.get());
                set.add(name);
            }
        }
        return set;
    }

    private static void setTensor(Binding b, Tensor t) {
        b.checkNotNull(t, "tensor");
        if (!t.shape().sameDims(b.shape)) {
            throw new BindingException(b.kind + " '" + b.name + "' is " + b.shape + " but the tensor is " + t.shape());
        }
        b.setConverted(t.segment(), t.dtype());
    }

    // ---------------------------------------------------------------- running

    /**
     * Runs the graph on the current inputs and params, and waits for it. Allocation-free.
     *
     * @throws BindingException if an input or param was never set
     */
    public void run() {
        boolean entered = enter();
        try {
            runOwned();
        } finally {
            exit(entered);
        }
    }

    /** A run by the thread that owns the graph now. */
    private void runOwned() {
        open();
        for (Binding b : all) {
            if (!b.isSet) {
                throw unset(b);
            }
        }
        exe.run(stream);
        stream.submitAndAwait();
    }

    /**
     * Starts a run on the current inputs and params without waiting: a device backend computes while the caller
     * goes on; {@link #await()} waits for it. Read outputs or change inputs only after {@code await}. Allocation-free.
     *
     * @throws BindingException if an input or param was never set
     */
    public void submit() {
        boolean entered = enter();
        try {
            open();
            for (Binding b : all) {
                if (!b.isSet) {
                    throw unset(b);
                }
            }
            exe.run(stream);
            stream.submit();
        } finally {
            exit(entered);
        }
    }

    /** Waits for the run {@link #submit()} started (returns at once when none is in flight). */
    public void await() {
        boolean entered = enter();
        try {
            open();
            stream.await();
        } finally {
            exit(entered);
        }
    }

    /**
     * Takes the graph for the calling thread: true when it was free, false when this thread holds it already (a
     * convenience call running it); another thread holding it is a {@link ConcurrentUseException}.
     */
    private boolean enter() {
        Thread me = Thread.currentThread();
        if (OWNER.compareAndSet(this, null, me)) {
            return true;
        }
        if (owner == me) {
            return false;
        }
        throw concurrentUse();
    }

    private void exit(boolean entered) {
        if (entered) {
            OWNER.setRelease(this, null);
        }
    }

    private ConcurrentUseException concurrentUse() {
        return new ConcurrentUseException(graphName() + " is being run by another thread (" + owner + "); a compiled"
                + " graph runs on one thread at a time: give each thread its own (CompiledGraph.copy())");
    }

    private BindingException unset(Binding b) {
        return new BindingException(graphName() + ": " + b.kind + " '" + b.name + "' " + b.shape
                + " has not been set (call set" + (b.kind.equals("input") ? "Input" : "Param") + ")");
    }

    /**
     * Convenience: sets the given inputs, runs, and returns every output as a new float array (converted from
     * its dtype), in output order. Inputs not in the map keep their previous values. Every entry, and that every
     * input and param is then set, is checked before anything is written, so a rejected call changes nothing.
     */
    public List<float[]> run(Map<String, float[]> in) {
        boolean entered = enter();
        try {
            return runMap(in);
        } finally {
            exit(entered);
        }
    }

    private List<float[]> runMap(Map<String, float[]> in) {
        open();
        requireArgument(in, "the input map");
        Map<Binding, float[]> checked = new HashMap<>();
        for (Map.Entry<String, float[]> e : in.entrySet()) {
            Binding b = input(e.getKey());
            b.check(e.getValue());
            checked.put(b, e.getValue());
        }
        checkAllSetOr(checked.keySet());
        checked.forEach(Binding::set);
        run();
        List<float[]> out = new ArrayList<>(outputs.length);
        for (TensorView v : outputs) {
            out.add(v.toFloatArray());
        }
        return out;
    }

    /**
     * Typed convenience: sets the given inputs from tensors (dims must match; dtypes convert as for arrays),
     * runs, and returns every output as a tensor of its declared dtype, in output order. Checked before anything
     * is written, like {@link #run(Map)}.
     */
    public List<Tensor> runTyped(Map<String, Tensor> in) {
        boolean entered = enter();
        try {
            return runTypedOwned(in);
        } finally {
            exit(entered);
        }
    }

    private List<Tensor> runTypedOwned(Map<String, Tensor> in) {
        open();
        requireArgument(in, "the input map");
        Map<Binding, Tensor> checked = new LinkedHashMap<>();
        for (Map.Entry<String, Tensor> e : in.entrySet()) {
            Binding b = input(e.getKey());
            b.checkNotNull(e.getValue(), "tensor");
            if (!e.getValue().shape().sameDims(b.shape)) {
                throw new BindingException(b.kind + " '" + b.name + "' is " + b.shape + " but the tensor is "
                        + e.getValue().shape());
            }
            checked.put(b, e.getValue());
        }
        checkAllSetOr(checked.keySet());
        checked.forEach(CompiledGraph::setTensor);
        run();
        List<Tensor> out = new ArrayList<>(outputs.length);
        for (TensorView v : outputs) {
            out.add(v.toTensor());
        }
        return out;
    }

    /**
     * The allocation-free call by position: writes {@code in[i]} to input {@code i} (in {@link #inputNames()}
     * order; a null entry keeps that input's value), runs, and copies output {@code j} into {@code out[j]}
     * (a null entry skips it). Float data only, converted to each slot's float type.
     *
     * @throws BindingException when an array count or length is wrong, before anything is written
     */
    public void runSlots(float[][] in, float[][] out) {
        boolean entered = enter();
        try {
            runSlotsOwned(in, out);
        } finally {
            exit(entered);
        }
    }

    private void runSlotsOwned(float[][] in, float[][] out) {
        open();
        requireArgument(in, "the input arrays");
        requireArgument(out, "the output arrays");
        if (in.length != inputByPosition.length) {
            throw new BindingException(graphName() + " has " + inputByPosition.length + " inputs but runSlots was given "
                    + in.length + " arrays");
        }
        if (out.length > outputs.length) {
            throw new BindingException(graphName() + " has " + outputs.length + " outputs but runSlots was given "
                    + out.length + " arrays");
        }
        for (int i = 0; i < in.length; i++) {
            if (in[i] != null) {
                inputByPosition[i].check(in[i]);
            }
        }
        for (int i = 0; i < in.length; i++) {
            if (in[i] != null) {
                inputByPosition[i].set(in[i]);
            }
        }
        run();
        for (int j = 0; j < out.length; j++) {
            if (out[j] != null) {
                outputs[j].copyTo(out[j]);
            }
        }
    }

    private void requireArgument(Object arg, String what) {
        if (arg == null) {
            throw new BindingException(graphName() + " was given null for " + what);
        }
    }

    private void checkAllSetOr(java.util.Set<Binding> given) {
        for (Binding b : all) {
            if (!b.isSet && !given.contains(b)) {
                throw unset(b);
            }
        }
    }

    /**
     * Re-seeds the graph's random-number ops and restarts their streams (see {@link RngOptions}), without
     * recompiling. The next run draws what the first run after compiling with {@code rng} would draw.
     */
    public void setRng(RngOptions rng) {
        openIdle();
        exe.setRng(Objects.requireNonNull(rng, "rng"));
    }

    /**
     * A new executable of the same program for another thread: its own arena, kernels and inputs (copied from
     * this graph's current ones), the same weight set, so the weights stay in memory once. Its random-number
     * streams start as compiled ({@link #setRng} is not carried over).
     */
    public CompiledGraph copy() {
        openIdle();
        weights.retain();
        CompiledGraph c = new CompiledGraph(backend, program, options, weights, bound, ownsWeights);
        for (Map.Entry<String, Binding> e : inputs.entrySet()) {
            if (e.getValue().isSet) {
                c.inputs.get(e.getKey()).setBytes(e.getValue().bytes());
            }
        }
        return c;
    }

    /** Output {@code i} of the last run, as a view created at compile time. */
    public TensorView output(int i) {
        openIdle();
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

    /** Bytes of the activation arena (inputs, intermediates, outputs, with reuse); params are not in it. */
    public long arenaBytes() {
        open();
        return program.plan().arenaBytes();
    }

    /** What the arena would take with no buffer reuse. */
    public long unsharedBytes() {
        open();
        return program.plan().unsharedBytes();
    }

    /** Bytes of the params this graph reads from its weight set (held once, however many graphs share them). */
    public long weightBytes() {
        open();
        return program.plan().paramBytes();
    }

    /** Bytes of device memory this graph owns: arena, constants and kernel workspace (weights not included). */
    public long deviceBytes() {
        open();
        return exe.deviceBytes();
    }

    /** Kernels run per call. */
    public int kernelCount() {
        open();
        return exe.kernelCount();
    }

    /** The memory plan as text (one line per buffer, then totals) and the weight set's summary. */
    public String memoryReport() {
        open();
        MemoryPlan plan = program.plan();
        return plan.report() + String.format(Locale.ROOT, "own device memory %,d bytes; %s%n", exe.deviceBytes(), weights);
    }

    List<String> unsetNames() {
        List<String> out = new ArrayList<>();
        for (Binding b : all) {
            if (!b.isSet) {
                out.add(b.name);
            }
        }
        return List.copyOf(out);
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException(graphName() + " compiled for " + device + " is closed");
        }
    }

    /** {@link #open()}, and not being run by another thread (what writes inputs or reads outputs needs). */
    private void openIdle() {
        open();
        Thread o = owner;
        if (o != null && o != Thread.currentThread()) {
            throw concurrentUse();
        }
    }

    /**
     * Releases the arena and kernels, and this graph's hold on its weight set (a set of its own is closed).
     * Further calls (here and on its output views; {@code close} excepted) throw {@link IllegalStateException}.
     */
    @Override
    public void close() {
        if (!closed) {
            Thread o = owner;
            if (o != null && o != Thread.currentThread()) {
                throw concurrentUse(); // freeing the arena under a run would corrupt it
            }
            closed = true;
            resources.closing();
            cleanable.clean();
        }
    }
}
