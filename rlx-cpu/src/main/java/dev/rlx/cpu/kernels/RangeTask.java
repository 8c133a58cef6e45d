package dev.rlx.cpu.kernels;

/**
 * Work over an index range, split across the worker pool. Kernels implement it themselves so that handing
 * work to the pool allocates nothing.
 */
public interface RangeTask {
    /** Processes indices {@code [from, to)}. Called concurrently on disjoint ranges. */
    void range(int from, int to);
}
