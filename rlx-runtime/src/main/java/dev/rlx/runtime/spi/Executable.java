package dev.rlx.runtime.spi;

import dev.rlx.ir.Value;
import java.lang.foreign.MemorySegment;

/**
 * A compiled graph on one device: its kernels and its arena. Used by one thread at a time. Values are those
 * of the compiled (optimised) graph; their slots follow the memory plan.
 *
 * <p>Host backends return the arena bytes of a slot from {@link #hostSlot} so inputs are written in place;
 * device backends return null and move data with {@link #write} and {@link #read}.
 */
public interface Executable extends AutoCloseable {
    /** Runs every kernel once. Must not allocate on the heap. */
    void run();

    /** The host-addressable bytes of {@code v}'s slot, or null when the arena is not host memory. */
    MemorySegment hostSlot(Value v);

    /** Copies {@code src} (the slot's byte size, in the value's dtype) into {@code v}'s slot. */
    void write(Value v, MemorySegment src);

    /** Copies {@code v}'s slot into {@code dst} (at least the slot's byte size). */
    void read(Value v, MemorySegment dst);

    /**
     * Re-seeds every random-number op and restarts its stream, without rebuilding kernels. Backends that run
     * {@code RngNormal}/{@code RngUniform} must override it; the default suits executables with no such op.
     */
    default void setRng(dev.rlx.runtime.RngOptions rng) {}

    /** Number of kernels {@link #run} executes (views and sources take none). */
    int kernelCount();

    /** Bytes of the arena actually allocated. */
    long arenaBytes();

    @Override
    void close();
}
