package dev.rlx.cpu.kernels;

import java.lang.foreign.MemorySegment;

/**
 * One transform of an Fft node, along one line of its operand: the unit {@link FftKernel} spreads over the
 * worker pool. Offsets and strides count scalars (f32 or f64): complex element j of a line is (re, im) at
 * {@code off + j*stride} and the scalar after it; real element j is at {@code off + j*stride}.
 * Implementations hold one workspace per parallel part, built at compile time; calls for different parts may
 * run at once, calls for one part never do.
 */
interface FftLine {
    void run(MemorySegment x, long xOff, long xStride, MemorySegment y, long yOff, long yStride, int part);
}
