package dev.rlx.cpu.kernels;

/** What kernels need from the worker pool. */
public interface Parallel {
    /** Threads work is split across (1 = run inline). */
    int threads();

    /**
     * Runs {@code task} over {@code [0, n)}, each index exactly once, in contiguous chunks on up to
     * {@link #threads()} threads, the calling thread among them; returns when all chunks are done.
     * {@code grain} is the least work worth a chunk of its own. Work with fewer than 8 grains per thread runs as
     * one chunk per thread (a kernel with per-part state calls it with {@code n} = its parts and {@code grain}
     * 1); more is handed out in smaller chunks (at least {@code grain}, the last may be shorter) as threads
     * finish, so a task must not assume one call per thread.
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
