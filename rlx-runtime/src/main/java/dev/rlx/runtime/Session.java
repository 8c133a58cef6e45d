package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphVerifier;
import dev.rlx.opt.CompilePipeline;
import dev.rlx.opt.MemoryPlan;
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
 */
public final class Session implements AutoCloseable {
    private final Device device;
    private final Backend backend;
    private final CompileOptions defaults;

    /**
     * @throws BackendUnavailableException when no backend for {@code device} is on the class path or usable
     */
    public Session(Device device) {
        this(device, CompileOptions.defaults());
    }

    public Session(Device device, CompileOptions defaults) {
        this.device = device;
        this.defaults = defaults;
        this.backend = BackendRegistry.global().create(device);
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
        GraphVerifier.verify(g);
        Legalizer.check(g, backend, OpRegistry.global());
        CompilePipeline pipeline = CompilePipeline.standard(options.precision(), options.optimize(),
                backend.supportedOps(), options.optimize() ? KernelConstantEvaluator.ifAvailable() : null);
        Graph optimised = pipeline.run(g);
        MemoryPlan plan = MemoryPlanner.plan(optimised, options.alignment(), options.optimize());
        Executable exe = backend.compile(new CompileRequest(optimised, plan, options, OpRegistry.global()));
        return new CompiledGraph(device, optimised, plan, exe);
    }

    @Override
    public void close() {
        backend.close();
    }
}
