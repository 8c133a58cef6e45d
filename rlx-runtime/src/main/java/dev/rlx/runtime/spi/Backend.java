package dev.rlx.runtime.spi;

import dev.rlx.opt.Capabilities;
import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;

/**
 * A compiler from verified, optimised, memory-planned graphs to {@link Executable}s for one device, and the
 * device's runtime (memory and streams). Thread-safe: a {@code Session} may compile from several threads at
 * once.
 *
 * <p>What a backend claims ({@link #capabilities()}) decides what it is given: the pipeline decomposes every
 * node it refuses into ones it claims, fuses only into kinds it may claim, plans every If/While/Scan body, and
 * the runtime rejects a graph with a node still refused before {@link #compile} is called. So a backend never
 * sees a node it did not claim, and never calls back into the optimiser. Only the primitive ops
 * ({@link dev.rlx.opt.Primitives}) are needed to run any graph.
 */
public interface Backend extends AutoCloseable {
    Device device();

    /** Name used in messages, e.g. {@code "cpu (Vector API, 512-bit)"}; part of compile-cache keys. */
    String name();

    /** The nodes this backend runs. */
    Capabilities capabilities();

    /** The device's memory and streams; weight sets and arenas are allocated here. */
    DeviceRuntime runtime();

    /**
     * Builds kernels for {@code request.graph()}: activations and constants laid out per
     * {@code request.plan()} in memory the executable allocates and owns; params read from the buffers in
     * {@code request.params()}, which it must not free.
     */
    Executable compile(CompileRequest request);

    /**
     * An evaluator that folds constants with this backend's own kernels (so folded values equal what it would
     * compute at run time) for graphs compiled with {@code options}; null to let the session use the CPU
     * backend's. It must run graphs directly, never through a {@code Session}.
     */
    default ConstantEvaluator constantEvaluator(CompileOptions options) {
        return null;
    }

    /** Releases device resources (worker threads, contexts). Executables already built stay valid. */
    @Override
    void close();
}
