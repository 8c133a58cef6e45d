package dev.rlx.vulkan;

import dev.rlx.runtime.spi.DeviceBuffer;
import java.lang.foreign.MemorySegment;

/**
 * A Vulkan buffer with memory of its own, addressed by shaders through its device address. {@link #host()} is
 * null: the bytes are reached through the allocator's copies (even where the memory happens to be mappable).
 */
final class VulkanBuffer implements DeviceBuffer {
    final long buffer;
    final long memory;
    /** The shader-visible address of byte 0. */
    final long address;
    /** The mapped bytes when the memory is host-visible, else null. */
    final MemorySegment mapped;
    private final long bytes;
    private boolean freed;

    VulkanBuffer(long buffer, long memory, long address, MemorySegment mapped, long bytes) {
        this.buffer = buffer;
        this.memory = memory;
        this.address = address;
        this.mapped = mapped;
        this.bytes = bytes;
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    @Override
    public MemorySegment host() {
        return null;
    }

    @Override
    public synchronized boolean isFreed() {
        return freed;
    }

    /** Marks it freed; true the first time. */
    synchronized boolean markFreed() {
        if (freed) {
            return false;
        }
        freed = true;
        return true;
    }
}
