package dev.rlx.cpu.kernels;

import java.lang.foreign.MemorySegment;

/**
 * One f32 complex DFT plan of a fixed length bound to one parallel part's workspace ({@link Pow2FftF32} or
 * {@link BluesteinFftF32}), so {@link VectorFftLine} runs either the same way.
 */
@FunctionalInterface
interface ComplexFftF32 {
    /**
     * Writes {@code scale * DFT(x)} (with {@code inverse}, the unscaled inverse DFT times {@code scale}) of the
     * interleaved complex values at byte offset {@code inOff} of {@code in} to byte offset {@code outOff} of
     * {@code out}.
     */
    void transform(MemorySegment in, long inOff, MemorySegment out, long outOff, float scale, boolean inverse);
}
