package dev.rlx.runtime.spi;

/**
 * An ordered queue of work on one device. {@link Executable#run(CommandStream)} enqueues a run; {@link #submit}
 * hands what was enqueued to the device without waiting, {@link #await} blocks until everything submitted has
 * finished. Work enqueued on one stream runs in order. Used by one thread at a time.
 */
public interface CommandStream extends AutoCloseable {
    /** Starts the work enqueued since the last submit; returns at once. */
    void submit();

    /** Blocks until all submitted work has completed. */
    void await();

    default void submitAndAwait() {
        submit();
        await();
    }

    @Override
    default void close() {}
}
