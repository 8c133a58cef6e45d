package dev.rlx.runtime.spi;

import java.lang.foreign.MemorySegment;

/**
 * A block of one device's memory, allocated by that device's {@link DeviceAllocator} and freed through it.
 * On a device that computes in host memory (the CPU) the bytes are also a {@link MemorySegment}; elsewhere the
 * allocator copies to and from host memory. A buffer holds raw little-endian bytes; what they mean is the
 * business of whoever binds it.
 */
public interface DeviceBuffer {
    /** Its size in bytes. */
    long byteSize();

    /** The bytes as host memory when the device works in host memory, else null. Invalid once freed. */
    MemorySegment host();

    /** Whether {@link DeviceAllocator#free} has released it. */
    boolean isFreed();
}
