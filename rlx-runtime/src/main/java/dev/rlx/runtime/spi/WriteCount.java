package dev.rlx.runtime.spi;

/**
 * How many times a param's bytes have been written through the runtime (a {@code setParam}, a weight set's
 * {@code set}, a loader). A backend that keeps its own copy of a weight in another layout (the CPU's pre-packed
 * matmul operands) records the count it copied at and copies again when the count has moved. Only params whose
 * memory nobody else writes have one (see {@link CompileRequest#writeCounts}); memory bound by reference
 * ({@code WeightSet.bind}) can change under the graph at any time and has none.
 */
public final class WriteCount {
    /** The count of a value that never changes after compile (a constant). */
    public static final WriteCount NEVER = new WriteCount();

    private volatile long count;

    /** The number of writes so far. */
    public long get() {
        return count;
    }

    /** Records a write, after its bytes are in place. Writes happen while no graph that reads them runs. */
    public void bump() {
        if (this == NEVER) {
            throw new IllegalStateException("a constant is never written");
        }
        synchronized (this) {
            count++;
        }
    }
}
