package dev.rlx.spark;

/** The batch shapes a task runs: few distinct ones, so each is compiled once and reused. */
final class Batches {
    private Batches() {}

    /** {@code n} rounded up to a multiple of {@code step}. */
    static int roundUp(int n, int step) {
        return (n + step - 1) / step * step;
    }

    /**
     * The rows a batch of {@code n} (at most {@code full}) runs as: {@code full} itself, else the next power of two
     * (at most {@code full}), so a partition's last, partial batches reuse a few compiled shapes.
     */
    static int roundedBatch(int n, int full) {
        if (n >= full) {
            return full;
        }
        int p = Integer.highestOneBit(Math.max(1, n));
        return Math.min(full, p == n ? n : p << 1);
    }
}
