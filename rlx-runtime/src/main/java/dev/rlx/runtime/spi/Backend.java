package dev.rlx.runtime.spi;

import dev.rlx.ir.OpKind;
import dev.rlx.runtime.Device;
import java.util.Set;

/**
 * A compiler from verified, optimised graphs to {@link Executable}s for one device. Thread-safe: a
 * {@code Session} may compile from several threads at once.
 *
 * <p>The runtime checks every node against {@link #supportedOps()} (and custom ops against the
 * {@code OpRegistry}) before calling {@link #compile}, so a backend never sees an op it did not claim.
 */
public interface Backend extends AutoCloseable {
    Device device();

    /** Name used in messages, e.g. {@code "cpu (Vector API, 512-bit)"}. */
    String name();

    /** The op kinds this backend executes. */
    Set<OpKind> supportedOps();

    /** Builds kernels for {@code request.graph()} with buffers bound per {@code request.plan()}. */
    Executable compile(CompileRequest request);

    /** Releases device resources (worker threads, contexts). Executables already built stay valid. */
    @Override
    void close();
}
