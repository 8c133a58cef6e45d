package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.CompilePipeline;
import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.DeviceRuntime;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compiles graphs for one device. Thread-safe; close it when done to release the backend (compiled graphs and
 * weight sets stay usable).
 *
 * <pre>{@code
 * try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) { ... }
 * }</pre>
 *
 * <p>A compile verifies the graph, checks the backend can run every node (directly, or after decomposing what
 * it does not claim: {@link #check}), runs the passes, plans memory and builds kernels. It goes through a
 * {@link CompileCache} (by default {@link CompileCache#shared()}): the same graph compiled again with the same
 * options reuses the optimised program and only builds fresh kernels and a fresh arena, so every
 * {@code CompiledGraph} stays independent. Params live in a {@link WeightSet}: give one to share weights
 * between graphs ({@link #compile(Graph, CompileOptions, WeightSet)}), or each graph gets its own.
 */
public final class Session implements AutoCloseable {
    private final Device device;
    private final Backend backend;
    private final CompileOptions defaults;
    private final CompileCache cache;

    /**
     * @throws BackendUnavailableException when no backend for {@code device} is on the class path or usable
     */
    public Session(Device device) {
        this(device, CompileOptions.defaults());
    }

    public Session(Device device, CompileOptions defaults) {
        this(device, defaults, CompileCache.shared());
    }

    /** A session compiling through {@code cache}; null compiles every graph from scratch. */
    public Session(Device device, CompileOptions defaults, CompileCache cache) {
        this(BackendRegistry.global().create(device), defaults, cache);
    }

    /** A session on {@code backend} with default options and the shared compile cache. */
    public Session(Backend backend) {
        this(backend, CompileOptions.defaults(), CompileCache.shared());
    }

    /**
     * A session on a backend instance of the caller's (a custom backend, a test backend, the reference
     * backend), compiling through {@code cache} (null: none). The session closes the backend when it is closed.
     */
    public Session(Backend backend, CompileOptions defaults, CompileCache cache) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.device = backend.device();
        this.defaults = Objects.requireNonNull(defaults, "defaults");
        this.cache = cache;
    }

    /** The cache compiles go through, or null. */
    public CompileCache cache() {
        return cache;
    }

    /** Identifies this session's backend (and what it claims) in cache keys. */
    String backendKey() {
        return device.name() + "/" + backend.name() + "/" + backend.capabilities().describe();
    }

    public Device device() {
        return device;
    }

    /** The backend's name, e.g. {@code "cpu (Vector API 512-bit, 2 threads)"}. */
    public String backendName() {
        return backend.name();
    }

    /** What the backend runs. */
    public Capabilities capabilities() {
        return backend.capabilities();
    }

    /** The backend's device runtime (memory and streams). */
    public DeviceRuntime runtime() {
        return backend.runtime();
    }

    public CompileOptions defaults() {
        return defaults;
    }

    /** A new, empty set of weights on this session's device, to share between the graphs compiled against it. */
    public WeightSet newWeightSet(String name) {
        return new WeightSet(name, device, backend.runtime().allocator(), defaults.limits());
    }

    /**
     * Whether this session's backend can run {@code g} compiled with the session's default options: every node
     * it cannot run, even after decomposition, with the reason; nothing is compiled.
     *
     * @throws dev.rlx.ir.GraphVerificationException when the graph is invalid
     */
    public SupportReport check(Graph g) {
        return check(g, defaults);
    }

    /** {@link #check(Graph)} for graphs compiled with {@code options} (its precision policy decides dtypes). */
    public SupportReport check(Graph g, CompileOptions options) {
        Graph typed = CompilePipeline.precisionOnly(options.precision()).run(g);
        return new SupportReport(backend.name(), Legalizer.offenders(typed, backend.capabilities(), device,
                OpRegistry.global()));
    }

    /** Whether {@link #check(Graph)} finds nothing unsupported. */
    public boolean supportsGraph(Graph g) {
        return check(g).supported();
    }

    public CompiledGraph compile(Graph g) {
        return compile(g, defaults, null);
    }

    public CompiledGraph compile(Graph g, CompileOptions options) {
        return compile(g, options, null);
    }

    /** Compiles {@code g} with the session's options, its params bound to {@code weights}. */
    public CompiledGraph compile(Graph g, WeightSet weights) {
        return compile(g, defaults, weights);
    }

    /**
     * Verifies {@code g}, checks the backend can run every node, optimises, plans memory and builds kernels;
     * params are bound to {@code weights} (declared there if missing), or to a weight set of the graph's own
     * when it is null.
     *
     * @throws dev.rlx.ir.GraphVerificationException when the graph is invalid
     * @throws UnsupportedOpException listing every node the backend cannot run
     * @throws BindingException when {@code weights} holds a param with another shape, is closed, or is on
     *     another device
     */
    public CompiledGraph compile(Graph g, CompileOptions options, WeightSet weights) {
        if (weights != null && weights.device() != device) {
            throw new BindingException("weight set '" + weights.name() + "' is on " + weights.device()
                    + " but this session compiles for " + device);
        }
        // Support can change between compiles (custom-op kernels registered or removed): always check it.
        SupportReport support = check(g, options);
        if (!support.supported()) {
            throw new UnsupportedOpException(backend.name(), support.unsupported());
        }
        Program p = cache != null ? cache.program(this, g, options) : prepare(g, options);
        return instantiate(p, options, weights);
    }

    /** Verifies, optimises and plans {@code g}: everything but building kernels. */
    Program prepare(Graph g, CompileOptions options) {
        CompileLog log = CompileLog.fromSettings(g.name());
        long start = System.nanoTime();
        ConstantEvaluator evaluator = options.optimize() ? constantEvaluator(options) : null;
        CompilePipeline pipeline = CompilePipeline.standard(options.precision(), options.optimize(),
                backend.capabilities(), evaluator);
        Graph optimised = log == null ? pipeline.run(g) : pipeline.run(g, log::pass);
        List<UnsupportedOpException.Offender> left = Legalizer.offenders(optimised, backend.capabilities(), device,
                OpRegistry.global());
        if (!left.isEmpty()) {
            throw new CompileException("the passes left nodes " + backend.name() + " does not run (a pass bug): " + left);
        }
        int alignment = Math.max(options.alignment(), backend.runtime().allocator().alignment());
        Program p = Program.plan(optimised, alignment, options.optimize());
        if (log != null) {
            log.planned(g, p.plan(), System.nanoTime() - start);
        }
        return p;
    }

    /** The backend's own constant evaluator, else the CPU backend's, else none (no folding). */
    private ConstantEvaluator constantEvaluator(CompileOptions options) {
        ConstantEvaluator own = backend.constantEvaluator(options);
        return own != null ? own : BackendRegistry.global().cpuConstantEvaluator(options);
    }

    /** Builds kernels and an arena for a prepared program, its params bound to {@code weights} (null: own set). */
    CompiledGraph instantiate(Program p, CompileOptions options, WeightSet weights) {
        WeightSet w = weights != null ? weights
                : new WeightSet(p.graph().name(), device, backend.runtime().allocator(), options.limits());
        Map<Value, WeightSet.Entry> bound;
        try {
            bound = w.acquire(p.graph());
        } catch (RuntimeException e) {
            if (weights == null) {
                w.close();
            }
            throw e;
        }
        return new CompiledGraph(backend, p, options, w, bound, weights == null);
    }

    @Override
    public void close() {
        backend.close();
    }
}
