package dev.rlx.cuda;

import dev.rlx.runtime.spi.CommandStream;

/**
 * A command stream on its own {@code CUstream}: a run enqueued by an executable ({@code cuGraphLaunch}, or its
 * launches one by one) is already handed to the device when it is enqueued, so {@link #submit} has nothing left
 * to do; {@link #await} waits for the stream. Used by one thread at a time.
 */
final class CudaStream implements CommandStream {
    private final CudaContext ctx;
    final long handle;
    private boolean closed;

    CudaStream(CudaContext ctx, long handle) {
        this.ctx = ctx;
        this.handle = handle;
    }

    @Override
    public void submit() {
        // CUDA starts work as it is enqueued
    }

    @Override
    public void await() {
        ctx.synchronize(handle, "waiting for a run");
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ctx.bind();
        ctx.synchronize(handle, "closing a stream");
        ctx.driver.cuStreamDestroy(handle);
    }
}
