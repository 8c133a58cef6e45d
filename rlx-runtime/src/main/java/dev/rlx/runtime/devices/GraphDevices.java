package dev.rlx.runtime.devices;

import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphVerifier;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Rlx;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.SupportReport;
import dev.rlx.runtime.WeightSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One graph, many devices: compiles the graph lazily for each device it is asked to run on (whole, or split with
 * the CPU when the device cannot run every node and partitioning is on), remembers every param set and pushes it to
 * every executable already built and to every later compile, and picks devices by hint, environment, cost model or
 * benchmark ({@link DeviceSelector}). Each device has one {@link WeightSet} shared by what is compiled for it.
 * Not thread-safe.
 *
 * <pre>{@code
 * try (GraphDevices gd = GraphDevices.fromEnv(graph)) {
 *     gd.setParam("w", Tensor.of(new float[] {1, 2}, 2));
 *     DeviceRun<float[]> r = gd.runTry(List.of(Device.CUDA, Device.CPU), Map.of("x", new float[] {3, 4}));
 * }
 * }</pre>
 */
public final class GraphDevices implements AutoCloseable {
    private final Graph graph;
    private DeviceSelector selector;
    private boolean ownsSelector;
    private final Map<String, Tensor> params = new LinkedHashMap<>();
    private final Map<Device, DeviceGraph> compiled = new EnumMap<>(Device.class);
    private final Map<Device, WeightSet> weights = new EnumMap<>(Device.class);
    private List<Device> supported;
    private Device benchmarkWinner;
    private boolean closed;

    /**
     * @param selector     chooses devices and holds the sessions
     * @param ownsSelector whether closing this closes the selector
     * @throws dev.rlx.ir.GraphVerificationException when the graph is invalid
     */
    public GraphDevices(Graph graph, DeviceSelector selector, boolean ownsSelector) {
        this.graph = Objects.requireNonNull(graph, "graph");
        this.selector = Objects.requireNonNull(selector, "selector");
        this.ownsSelector = ownsSelector;
        GraphVerifier.verify(graph);
        this.supported = selector.devicesFor(graph);
    }

    /** The graph with the policy and device settings of the environment, calibrated costs, partitioning on. */
    public static GraphDevices fromEnv(Graph graph) {
        return withPolicy(graph, DevicePolicy.fromEnv());
    }

    /** The graph under {@code policy} (other settings from the environment), partitioning on. */
    public static GraphDevices withPolicy(Graph graph, DevicePolicy policy) {
        return new GraphDevices(graph, new DeviceSelector(policy, CostModels.calibrated(), Rlx::setting,
                CompileOptions.defaults(), true), true);
    }

    public Graph graph() {
        return graph;
    }

    public DeviceSelector selector() {
        return selector;
    }

    /** The devices that can run the graph under the policy, preferred first. */
    public List<Device> devices() {
        open();
        return supported;
    }

    public DeviceReport report() {
        open();
        return selector.report(graph);
    }

    /** The cheapest viable device ({@code RLX_FORCE_DEVICE} first), without compiling. */
    public DeviceChoice fastest() {
        open();
        return selector.fastest(graph);
    }

    /** {@link DeviceSelector#resolve}: hint, else {@code RLX_DEVICE}, else {@link #fastest}. */
    public DeviceChoice resolve(Device hint) {
        open();
        return selector.resolve(graph, hint);
    }

    /** The hint when given; else the first viable device of {@code RLX_DEVICE_CHAIN} when set; else {@link #resolve}. */
    public DeviceChoice resolveChain(Device hint) {
        open();
        if (hint != null) {
            return selector.resolve(graph, hint);
        }
        Optional<List<Device>> chain = DevicePolicy.deviceChainFromEnv(selector.env());
        return chain.isPresent() ? selector.resolveChain(graph, chain.get()) : selector.resolve(graph, null);
    }

    // ---------------------------------------------------------------- params

    /** Remembers {@code value} for param {@code name} and writes it to every device compiled so far. */
    public void setParam(String name, Tensor value) {
        open();
        var p = graph.params().stream().filter(v -> graph.nameOf(v).equals(name)).findFirst()
                .orElseThrow(() -> new dev.rlx.runtime.BindingException("graph @" + graph.name() + " has no param '"
                        + name + "'; its params are " + graph.params().stream().map(graph::nameOf).toList()));
        if (!p.shape().sameDims(value.shape())) {
            throw new dev.rlx.runtime.BindingException("param '" + name + "' is " + p.shape() + " but the tensor is "
                    + value.shape());
        }
        for (DeviceGraph c : compiled.values()) {
            c.setParam(name, value);
        }
        params.put(name, value);
    }

    public void setParam(String name, float[] value) {
        var p = graph.params().stream().filter(v -> graph.nameOf(v).equals(name)).findFirst();
        if (p.isPresent() && p.get().shape().elementCount() != value.length) {
            throw new dev.rlx.runtime.BindingException("param '" + name + "' is " + p.get().shape() + " but "
                    + value.length + " values were given");
        }
        setParam(name, Tensor.of(value, p.isPresent() ? p.get().shape().dims() : new int[] {value.length}));
    }

    /** Writes every remembered param to every compiled device again. */
    public void syncParamsToAll() {
        open();
        for (DeviceGraph c : compiled.values()) {
            params.forEach(c::setParam);
        }
    }

    // ---------------------------------------------------------------- compiling

    /**
     * The graph compiled for {@code device} (once; later calls return the same executable), with every remembered
     * param applied.
     *
     * @throws DeviceSelectionException when the device cannot run the graph under the policy
     */
    public DeviceGraph compile(Device device) {
        open();
        DeviceGraph c = compiled.get(device);
        if (c != null) {
            return c;
        }
        if (!supported.contains(device)) {
            throw new DeviceSelectionException("device " + device.label() + " cannot run graph @" + graph.name()
                    + " under " + selector.policy() + "; viable devices: " + DeviceSelector.labels(supported));
        }
        Session s = selector.session(device);
        SupportReport support = s.check(graph);
        if (support.supported()) {
            c = new WholeGraph(s.compile(graph, weightSet(device)));
        } else {
            c = new PartitionedGraph(Partitioner.plan(graph, support, device), selector::session, this::weightSet);
        }
        try {
            params.forEach(c::setParam);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        compiled.put(device, c);
        return c;
    }

    private WeightSet weightSet(Device d) {
        return weights.computeIfAbsent(d, x -> selector.session(x).newWeightSet(graph.name() + "@" + x.label()));
    }

    public DeviceGraph compileFastest() {
        return compile(fastest().device());
    }

    public DeviceGraph compileResolved(Device hint) {
        return compile(resolve(hint).device());
    }

    /** The first device of {@code chain} (or {@code RLX_DEVICE_CHAIN}, or the resolved device) that compiles. */
    public DeviceGraph compileChain(List<Device> chain) {
        open();
        List<DeviceFallbackException.Attempt> attempts = new ArrayList<>();
        for (Device d : chainOrDefault(chain)) {
            try {
                return compile(d);
            } catch (RuntimeException e) {
                attempts.add(new DeviceFallbackException.Attempt(d, message(e)));
            }
        }
        throw new DeviceFallbackException(graph.name(), attempts);
    }

    private List<Device> chainOrDefault(List<Device> chain) {
        if (chain != null) {
            return chain;
        }
        return DevicePolicy.deviceChainFromEnv(selector.env()).orElseGet(() -> List.of(resolve(null).device()));
    }

    /** Compiles the graph for every viable device (what a server does before taking traffic). */
    public void warmAll() {
        open();
        for (Device d : supported) {
            compile(d);
        }
    }

    // ---------------------------------------------------------------- running

    public List<float[]> run(Device device, Map<String, float[]> inputs) {
        return compile(device).run(inputs);
    }

    public List<Tensor> runTyped(Device device, Map<String, Tensor> inputs) {
        return compile(device).runTyped(inputs);
    }

    public DeviceRun<float[]> runResolved(Device hint, Map<String, float[]> inputs) {
        Device d = resolve(hint).device();
        return new DeviceRun<>(d, run(d, inputs), List.of());
    }

    public DeviceRun<float[]> runFastest(Map<String, float[]> inputs) {
        Device d = fastest().device();
        return new DeviceRun<>(d, run(d, inputs), List.of());
    }

    /**
     * Runs on the first device of {@code chain} that compiles and runs the graph; a device that is not viable, or
     * fails, is recorded and the next one tried.
     *
     * @throws DeviceFallbackException listing every attempt when all fail (an empty chain: one CPU attempt)
     */
    public DeviceRun<float[]> runTry(List<Device> chain, Map<String, float[]> inputs) {
        return attempt(chain, c -> c.run(inputs));
    }

    public DeviceRun<Tensor> runTryTyped(List<Device> chain, Map<String, Tensor> inputs) {
        return attempt(chain, c -> c.runTyped(inputs));
    }

    /** {@link #runTry} on the hint alone when given, else on {@code RLX_DEVICE_CHAIN} or the resolved device. */
    public DeviceRun<float[]> runChain(Device hint, Map<String, float[]> inputs) {
        return runTry(hint != null ? List.of(hint) : chainOrDefault(null), inputs);
    }

    private <T> DeviceRun<T> attempt(List<Device> chain, Function<DeviceGraph, List<T>> run) {
        open();
        List<DeviceFallbackException.Attempt> attempts = new ArrayList<>();
        if (chain.isEmpty()) {
            attempts.add(new DeviceFallbackException.Attempt(Device.CPU, "empty fallback chain"));
        }
        for (Device d : chain) {
            if (!supported.contains(d)) {
                attempts.add(new DeviceFallbackException.Attempt(d, "not viable for this graph under policy"
                        + blockerOf(d)));
                continue;
            }
            try {
                return new DeviceRun<>(d, run.apply(compile(d)), attempts);
            } catch (RuntimeException e) {
                attempts.add(new DeviceFallbackException.Attempt(d, message(e)));
            }
        }
        throw new DeviceFallbackException(graph.name(), attempts);
    }

    private String blockerOf(Device d) {
        String b = selector.blockerFor(graph, d);
        return b == null ? "" : " (" + b + ")";
    }

    private static String message(RuntimeException e) {
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /**
     * Times {@code runs} runs (after one warm-up) of the graph on every viable device with {@code inputs}; fastest
     * first. Compiles what is not compiled yet.
     */
    public List<BenchmarkResult> benchmark(Map<String, Tensor> inputs, int runs) {
        open();
        int n = Math.max(1, runs);
        List<BenchmarkResult> out = new ArrayList<>();
        for (Device d : supported) {
            try {
                DeviceGraph c = compile(d);
                c.runTyped(inputs);
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    c.runTyped(inputs);
                }
                out.add(new BenchmarkResult(d, (System.nanoTime() - t0) / (double) n, n, null));
            } catch (RuntimeException e) {
                out.add(new BenchmarkResult(d, Double.POSITIVE_INFINITY, 0, message(e)));
            }
        }
        out.sort(Comparator.comparingDouble(BenchmarkResult::nsPerRun));
        return out;
    }

    /**
     * The device for a run with {@code inputs}: the hint; else, under a benchmark pick, the benchmark's winner
     * (measured once, kept until {@link #invalidateCache}); else {@link #resolve}.
     */
    public DeviceChoice resolveWithInputs(Device hint, Map<String, Tensor> inputs) {
        open();
        if (hint != null || !(selector.policy().pick() instanceof PickStrategy.Benchmark b)) {
            return resolve(hint);
        }
        if (benchmarkWinner == null) {
            List<BenchmarkResult> ranked = benchmark(inputs, b.runs());
            if (ranked.isEmpty() || ranked.get(0).error() != null) {
                return resolve(null);
            }
            benchmarkWinner = ranked.get(0).device();
        }
        return new DeviceChoice(benchmarkWinner, "benchmark winner (" + b.runs() + " runs)");
    }

    /** Forgets every executable and the benchmark winner and recomputes the viable devices; params are kept. */
    public void invalidateCache() {
        open();
        closeExecutables();
        benchmarkWinner = null;
        supported = selector.devicesFor(graph);
    }

    /** Uses {@code policy} from now on (its own selector, same cost models and settings); invalidates. */
    public void setPolicy(DevicePolicy policy) {
        open();
        DeviceSelector next = selector.withPolicy(policy);
        closeExecutables();
        if (ownsSelector) {
            selector.close();
        }
        selector = next;
        ownsSelector = true;
        benchmarkWinner = null;
        supported = selector.devicesFor(graph);
    }

    /** Devices compiled so far. */
    public List<Device> compiledDevices() {
        return List.copyOf(compiled.keySet());
    }

    private void closeExecutables() {
        compiled.values().forEach(DeviceGraph::close);
        compiled.clear();
        weights.values().forEach(WeightSet::close);
        weights.clear();
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException("GraphDevices of @" + graph.name() + " is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            closeExecutables();
            if (ownsSelector) {
                selector.close();
            }
        }
    }
}
