package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphVerifier;
import dev.rlx.opt.CompilePipeline;
import dev.rlx.opt.MemoryPlanner;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.Executable;

/**
 * Compiles graphs for one device. Thread-safe; close it when done to release the backend (compiled graphs
 * stay usable).
 *
 * <pre>{@code
 * try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) { ... }
 * }</pre>
 *
 * <p>Compiling goes through a {@link CompileCache} (by default {@link CompileCache#shared()}): the same graph
 * compiled again with the same options reuses the optimised program and only builds fresh kernels and a
 * fresh arena, so every {@code CompiledGraph} stays independent.
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
        this.device = device;
        this.defaults = defaults;
        this.cache = cache;
        this.backend = BackendRegistry.global().create(device);
    }

    /** The cache compiles go through, or null. */
    public CompileCache cache() {
        return cache;
    }

    /** Identifies this session's backend (and what it claims) in cache keys. */
    String backendKey() {
        return device.name() + "/" + backend.name() + "/" + new java.util.TreeSet<>(backend.supportedOps());
    }

    public Device device() {
        return device;
    }

    /** The backend's name, e.g. {@code "cpu (Vector API 512-bit, 2 threads)"}. */
    public String backendName() {
        return backend.name();
    }

    public CompileOptions defaults() {
        return defaults;
    }

    public CompiledGraph compile(Graph g) {
        return compile(g, defaults);
    }

    /**
     * Verifies {@code g}, checks the backend supports every op, optimises, plans memory and builds kernels.
     *
     * @throws dev.rlx.ir.GraphVerificationException when the graph is invalid
     * @throws UnsupportedOpException listing every node the backend cannot run
     */
    public CompiledGraph compile(Graph g, CompileOptions options) {
        // Support can change between compiles (custom-op kernels registered or removed): always check it.
        Legalizer.check(g, backend, OpRegistry.global());
        return cache != null ? cache.compile(this, g, options) : instantiate(prepare(g, options), options);
    }

    /** Verifies, optimises and plans {@code g}: everything but building kernels. */
    Program prepare(Graph g, CompileOptions options) {
        GraphVerifier.verify(g);
        CompilePipeline pipeline = CompilePipeline.standard(options.precision(), options.optimize(),
                backend.supportedOps(), options.optimize() ? KernelConstantEvaluator.ifAvailable() : null);
        Graph optimised = pipeline.run(g);
        return new Program(optimised, MemoryPlanner.plan(optimised, options.alignment(), options.optimize()));
    }

    /** Builds kernels and an arena for a prepared program. */
    CompiledGraph instantiate(Program p, CompileOptions options) {
        Executable exe = backend.compile(new CompileRequest(p.graph(), p.plan(), options, OpRegistry.global()));
        return new CompiledGraph(device, p.graph(), p.plan(), exe);
    }

    @Override
    public void close() {
        backend.close();
    }
}
