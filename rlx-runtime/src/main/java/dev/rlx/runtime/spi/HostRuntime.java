package dev.rlx.runtime.spi;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.DeviceMemoryException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The device runtime of a backend that computes in host memory: buffers are native segments (one shared
 * arena each, so a buffer is freed on its own), copies are memory copies, and the stream is synchronous.
 */
public final class HostRuntime implements DeviceRuntime, DeviceAllocator {
    private final Device device;
    private final int alignment;
    private final AtomicLong allocated = new AtomicLong();

    /** Host memory for {@code device}, every buffer aligned to {@code alignment} bytes. */
    public HostRuntime(Device device, int alignment) {
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two but is " + alignment);
        }
        this.device = device;
        this.alignment = alignment;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public DeviceAllocator allocator() {
        return this;
    }

    @Override
    public CommandStream newStream() {
        return SyncStream.INSTANCE;
    }

    @Override
    public int alignment() {
        return alignment;
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
        }
        Arena arena = Arena.ofShared();
        MemorySegment s;
        try {
            s = arena.allocate(Math.max(1, bytes), alignment).asSlice(0, bytes);
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            arena.close();
            throw new DeviceMemoryException(device, bytes, allocated.get(), e);
        }
        allocated.addAndGet(bytes);
        return new HostBuffer(arena, s);
    }

    @Override
    public void free(DeviceBuffer buffer) {
        HostBuffer b = (HostBuffer) buffer;
        if (b.free()) {
            allocated.addAndGet(-b.byteSize());
        }
    }

    @Override
    public void copyToDevice(MemorySegment src, DeviceBuffer dst, long dstOffset) {
        MemorySegment.copy(src, 0, dst.host(), dstOffset, src.byteSize());
    }

    @Override
    public void copyToHost(DeviceBuffer src, long srcOffset, MemorySegment dst) {
        MemorySegment.copy(src.host(), srcOffset, dst, 0, dst.byteSize());
    }

    @Override
    public long allocatedBytes() {
        return allocated.get();
    }

    /**
     * {@code segment} seen as a buffer of a host device, owned by the caller: for memory RLX reads by reference
     * ({@code WeightSet.bind}), such as a KV cache's pool. It must stay valid while graphs use it. It must be
     * native memory: kernels read it with the Vector API, whose JDK-wide load profile a single heap segment makes
     * bimorphic, slowing every vector kernel compiled afterwards (copy arrays in with {@code WeightSet.set}).
     *
     * @throws dev.rlx.runtime.BindingException for a heap segment
     */
    public static DeviceBuffer wrap(MemorySegment segment) {
        if (!segment.isNative()) {
            throw new dev.rlx.runtime.BindingException("memory bound by reference must be native (an arena's or a"
                    + " mapping's), not a heap segment of " + segment.byteSize() + " bytes: copy it in instead");
        }
        return new DeviceBuffer() {
            @Override
            public long byteSize() {
                return segment.byteSize();
            }

            @Override
            public MemorySegment host() {
                return segment;
            }

            @Override
            public boolean isFreed() {
                return !segment.scope().isAlive();
            }
        };
    }

    /** A host buffer: its own arena, so freeing it releases exactly its bytes. */
    private static final class HostBuffer implements DeviceBuffer {
        private final Arena arena;
        private final MemorySegment segment;
        private boolean freed;

        HostBuffer(Arena arena, MemorySegment segment) {
            this.arena = arena;
            this.segment = segment;
        }

        @Override
        public long byteSize() {
            return segment.byteSize();
        }

        @Override
        public MemorySegment host() {
            return segment;
        }

        @Override
        public synchronized boolean isFreed() {
            return freed;
        }

        /** Frees once; true the first time. */
        synchronized boolean free() {
            if (freed) {
                return false;
            }
            freed = true;
            arena.close();
            return true;
        }
    }
}
