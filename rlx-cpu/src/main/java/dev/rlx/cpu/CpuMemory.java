package dev.rlx.cpu;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.DeviceMemoryException;
import dev.rlx.runtime.spi.DeviceAllocator;
import dev.rlx.runtime.spi.DeviceBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory one CPU executable owns: its activation arena and constant pools (device buffers from the
 * backend's allocator) and the kernels' scratch. Bodies of control-flow nodes allocate here too, so closing
 * the executable frees everything at once. Params are not here: they belong to a weight set.
 */
final class CpuMemory implements AutoCloseable {
    private final DeviceAllocator allocator;
    private final List<DeviceBuffer> buffers = new ArrayList<>();
    private final Arena scratch = Arena.ofShared();
    private long scratchBytes;
    private MemorySegment workspace; // the kernels' shared workspace (the newest, largest one)
    private long workspaceUsed; // bytes of it the kernel being built has taken

    CpuMemory(DeviceAllocator allocator) {
        this.allocator = allocator;
    }

    /** A zeroed buffer of {@code bytes}, as host memory. */
    MemorySegment buffer(long bytes) {
        DeviceBuffer b = allocator.allocate(bytes);
        buffers.add(b);
        return b.host();
    }

    /** Zeroed kernel workspace, 64-byte aligned. */
    MemorySegment scratch(long bytes) {
        MemorySegment s = allocateScratch(Math.max(1, bytes)).asSlice(0, bytes);
        scratchBytes += bytes;
        return s;
    }

    /** The next kernel's workspace requests start again at the beginning of the shared workspace. */
    void beginKernel() {
        workspaceUsed = 0;
    }

    /**
     * Bytes only the kernel being built uses, and only while it runs: carved from one workspace all kernels share.
     * When a kernel needs more than is left, a larger workspace (at least twice the last) is allocated and later
     * kernels share that one; kernels built earlier keep the slices they were given, so what is held stays within
     * about twice the largest kernel's need.
     */
    MemorySegment workspace(long bytes) {
        long need = (bytes + 63) & ~63L;
        if (workspace == null || workspaceUsed + need > workspace.byteSize()) {
            long size = Math.max(need + workspaceUsed, workspace == null ? 0 : 2 * workspace.byteSize());
            workspace = allocateScratch(Math.max(64, size));
            scratchBytes += workspace.byteSize();
            workspaceUsed = 0;
        }
        MemorySegment s = workspace.asSlice(workspaceUsed, bytes);
        workspaceUsed += need;
        return s;
    }

    /** Scratch bytes; running out of memory is a typed error, never a raw {@link OutOfMemoryError}. */
    private MemorySegment allocateScratch(long bytes) {
        try {
            return scratch.allocate(bytes, 64);
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            throw new DeviceMemoryException(Device.CPU, bytes, bytes(), e);
        }
    }

    /** Bytes held: buffers and scratch. */
    long bytes() {
        long n = scratchBytes;
        for (DeviceBuffer b : buffers) {
            n += b.byteSize();
        }
        return n;
    }

    @Override
    public void close() {
        for (DeviceBuffer b : buffers) {
            allocator.free(b);
        }
        buffers.clear();
        scratch.close();
    }
}
