package dev.rlx.runtime.spi;

import java.lang.foreign.MemorySegment;

/**
 * Allocates, frees and fills one device's buffers: the memory plan's activation arena, constant pools and the
 * shared weight sets all come from here. Thread-safe.
 */
public interface DeviceAllocator {
    /** Byte alignment of every buffer's start (a power of two); plans use at least this. */
    int alignment();

    /**
     * A new zero-filled buffer of {@code bytes} bytes ({@code 0} gives a valid empty buffer).
     *
     * @throws dev.rlx.runtime.DeviceMemoryException naming the size when the device cannot provide it
     */
    DeviceBuffer allocate(long bytes);

    /** Releases {@code buffer}; freeing it again does nothing. */
    void free(DeviceBuffer buffer);

    /** Copies all of {@code src} (host memory) into {@code dst} at byte {@code dstOffset}. */
    void copyToDevice(MemorySegment src, DeviceBuffer dst, long dstOffset);

    /** Copies {@code dst.byteSize()} bytes of {@code src} from byte {@code srcOffset} into host memory. */
    void copyToHost(DeviceBuffer src, long srcOffset, MemorySegment dst);

    /** Bytes held by buffers not yet freed. */
    long allocatedBytes();
}
