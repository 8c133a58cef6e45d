package dev.rlx.runtime.weights;

import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;

/**
 * A named tensor in a weight file: its shape and its little-endian bytes ({@code shape.byteSize()} long),
 * usually a read-only slice of a mapped file, valid while the loader is open.
 */
public record WeightTensor(String name, Shape shape, MemorySegment data) {}
