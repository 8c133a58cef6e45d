package dev.rlx.cpu.kernels;

/** What kernels need from the worker pool. */
public interface Parallel {
    /** Threads work is split across (1 = run inline). */
    int threads();

    /**
     * Runs {@code task} over {@code [0, n)} in up to {@link #threads()} contiguous chunks of at least
     * {@code grain} indices, the calling thread taking the first; returns when all chunks are done.
     */
    void parallelFor(int n, int grain, RangeTask task);

    /** Runs everything on the calling thread. */
    Parallel INLINE = new Parallel() {
        @Override
        public int threads() {
            return 1;
        }

        @Override
        public void parallelFor(int n, int grain, RangeTask task) {
            if (n > 0) {
                task.range(0, n);
            }
        }
    };
}
