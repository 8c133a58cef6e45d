package dev.rlx.cpu.kernels;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out the units {@code [0, total)} of one kernel run in chunks to its parts (one per thread), which take
 * chunks until none is left: a part on a slower core (a vCPU whose sibling is busy) does less instead of holding
 * the run up. For kernels whose parts own state (scratch, offsets) and so cannot let the pool split them.
 * Allocation-free; {@link #reset} before each dispatch (the pool's hand-off publishes it to the workers).
 */
final class WorkCursor {
    /** Chunks per part: enough to even out a part at two thirds of the others' speed, few enough to stay cheap. */
    static final int CHUNKS_PER_PART = 8;

    private final AtomicLong next = new AtomicLong(); // long: taking past the end never wraps
    private int total;
    private int size = 1;

    /** Starts a run over {@code total} units shared by {@code parts} parts. */
    void reset(int total, int parts) {
        this.total = total;
        this.size = (int) Math.max(1, (long) total / ((long) Math.max(1, parts) * CHUNKS_PER_PART));
        next.set(0);
    }

    /** First unit of the next chunk, or -1 when all are taken. */
    int take() {
        long start = next.getAndAdd(size);
        return start < total ? (int) start : -1;
    }

    /** End (exclusive) of the chunk starting at {@code start}. */
    int end(int start) {
        return (int) Math.min(total, (long) start + size);
    }
}
