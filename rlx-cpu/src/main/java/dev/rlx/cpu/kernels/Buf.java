package dev.rlx.cpu.kernels;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;

/** A tensor's bytes in the arena ({@code shape.byteSize()} long, row-major, little-endian) and its shape. */
public record Buf(MemorySegment seg, Shape shape) {
    public DType dtype() {
        return shape.dtype();
    }

    public long size() {
        return shape.elementCount();
    }
}
