package dev.rlx.cpu.kernels;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out the units {@code [0, total)} of one parallel run in chunks to the threads taking part, which take
 * chunks until none is left: a thread on a slower core (a vCPU whose sibling is busy) does less instead of holding
 * the run up. The worker pool uses one for large ranges; kernels whose parts own state (scratch, offsets), and so
 * run one part per thread, use their own for their units. Allocation-free; {@link #reset} before each dispatch
 * (the pool's hand-off publishes it to the workers).
 */
public final class WorkCursor {
    /** Chunks per thread: enough to even out a thread at two thirds of the others' speed, few enough to stay cheap. */
    public static final int CHUNKS_PER_PART = 8;

    private final AtomicLong next = new AtomicLong(); // long: taking past the end never wraps
    private int total;
    private int size = 1;

    /** Starts a run over {@code total} units shared by {@code parts} threads. */
    public void reset(int total, int parts) {
        reset(total, parts, 1);
    }

    /** As {@link #reset(int, int)}, with chunks of at least {@code minSize} units (the last may be shorter). */
    public void reset(int total, int parts, int minSize) {
        long chunks = (long) Math.max(1, parts) * CHUNKS_PER_PART;
        this.total = total;
        this.size = (int) Math.max(Math.max(1, minSize), (total + chunks - 1) / chunks);
        next.set(0);
    }

    /** First unit of the next chunk, or -1 when all are taken. */
    public int take() {
        long start = next.getAndAdd(size);
        return start < total ? (int) start : -1;
    }

    /** End (exclusive) of the chunk starting at {@code start}. */
    public int end(int start) {
        return (int) Math.min(total, (long) start + size);
    }

    /** Hands out nothing more in this run (after a failure). */
    public void stop() {
        next.set(total);
    }
}
