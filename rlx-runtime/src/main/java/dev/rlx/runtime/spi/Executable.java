package dev.rlx.runtime.spi;

import dev.rlx.ir.Value;
import dev.rlx.runtime.RngOptions;
import java.lang.foreign.MemorySegment;

/**
 * A compiled graph on one device: its kernels, its activation arena and constant pool, and references to the
 * param buffers it was bound to. Used by one thread at a time. Values are those of the compiled (optimised)
 * graph; their slots follow the memory plan.
 *
 * <p>Host backends return the bytes of a slot from {@link #hostSlot} so inputs are written and outputs read in
 * place; device backends return null and move data with {@link #write} and {@link #read}.
 */
public interface Executable extends AutoCloseable {
    /** Enqueues one run of every kernel on {@code stream} (a host backend may run it at once). Must not allocate. */
    void run(CommandStream stream);

    /** The host-addressable bytes of {@code v}'s slot, or null when its memory is not host memory. */
    MemorySegment hostSlot(Value v);

    /** Copies {@code src} (the slot's byte size, in the value's dtype) into {@code v}'s slot. */
    void write(Value v, MemorySegment src);

    /** Copies {@code v}'s slot into {@code dst} (at least the slot's byte size). */
    void read(Value v, MemorySegment dst);

    /**
     * Re-seeds every random-number op and restarts its stream, without rebuilding kernels. Backends that run
     * {@code RngNormal}/{@code RngUniform} must override it; the default suits executables with no such op.
     */
    default void setRng(RngOptions rng) {}

    /** Number of kernels {@link #run} executes (views and sources take none). */
    int kernelCount();

    /** Bytes of device memory this executable owns (arena, constants, scratch), params not included. */
    long deviceBytes();

    /** Frees what it owns; the param buffers it was bound to stay. */
    @Override
    void close();
}
