package dev.rlx.cpu.kernels;

import java.lang.foreign.MemorySegment;

/**
 * One fused element-wise program compiled to a single f32 vector loop ({@link FusedLoops} generates one class
 * per program and operand layout): every step's value stays in a register, where {@link ProgramEval} runs each
 * step over a piece into L1 scratch. Only whole vectors; the caller finishes the tail with {@link ProgramEval}.
 */
interface FusedLoop {
    /**
     * {@code out[outOff + j] = program(ins[k][offs[k] + j*stride_k])} for {@code j < n}, a multiple of the lane
     * count, where stride_k is 1 for a contiguous operand and 0 for a broadcast scalar (fixed when generated).
     */
    void run(MemorySegment[] ins, long[] offs, MemorySegment out, long outOff, int n);
}
