package dev.rlx.cpu.kernels;

/**
 * One step of a compiled CPU graph: everything it reads and writes (arena slices, loop bounds, strides) is
 * bound when it is built, so {@link #run()} only computes. Implementations must not allocate in {@code run}.
 */
public interface Kernel {
    void run();
}
