package dev.rlx.cpu.kernels;

/** How finely the reduce, norm and index kernels split their work units across the worker pool. */
final class Grain {
    private Grain() {}

    /** Elements a parallel chunk should cover at least, so the dispatch cost stays small beside the work. */
    static final int ELEMENTS = 16 * 1024;

    /** The {@code grain} for {@link Parallel#parallelFor} when each unit touches {@code elementsPerUnit}. */
    static int of(long elementsPerUnit) {
        return (int) Math.max(1, ELEMENTS / Math.max(1, elementsPerUnit));
    }
}
