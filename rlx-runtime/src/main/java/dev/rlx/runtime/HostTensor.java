package dev.rlx.runtime;

import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;

/**
 * A tensor in host memory as a custom kernel sees it: its shape and its row-major little-endian bytes
 * ({@code shape.byteSize()} long). Valid only during the kernel call.
 */
public record HostTensor(Shape shape, MemorySegment data) {
    /** Element count. */
    public long size() {
        return shape.elementCount();
    }
}
