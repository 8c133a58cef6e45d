package dev.rlx.cpu;

import dev.rlx.cpu.kernels.Parallel;
import dev.rlx.cpu.kernels.RangeTask;
import dev.rlx.cpu.kernels.WorkCursor;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed set of daemon worker threads that split index ranges with the calling thread. Dispatch allocates
 * nothing: the task is the kernel object and each worker's chunk is written into its own fields.
 *
 * <p>One dispatch at a time: a second thread that finds the pool busy (another compiled graph running
 * concurrently) runs its work inline rather than waiting. Work submitted from inside a worker also runs
 * inline. Workers spin briefly after a dispatch, because kernels come in quick succession, then park.
 * Work with room for several chunks per thread is handed out chunk by chunk as threads finish (a thread on a
 * slower core takes fewer); work split into at most a few pieces per thread (a kernel's per-part state) runs
 * one static piece per thread.
 */
final class WorkerPool implements Parallel {
    private static final ConcurrentHashMap<Integer, WorkerPool> SHARED = new ConcurrentHashMap<>();
    /** Nanoseconds a worker spins for the next dispatch before parking. */
    private static final long SPIN_NS = 50_000;

    private final int threads;
    private final Worker[] workers;
    private final ReentrantLock dispatch = new ReentrantLock();
    private final AtomicInteger pending = new AtomicInteger();
    // the current dispatch's chunking (written before the workers' generation bump, read after it)
    private final WorkCursor cursor = new WorkCursor();
    private boolean chunked; // false: one static chunk per thread

    /** The process-wide pool with {@code threads} threads (created once, lives until exit). */
    static WorkerPool shared(int threads) {
        return SHARED.computeIfAbsent(threads, WorkerPool::new);
    }

    private WorkerPool(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1 but is " + threads);
        }
        this.threads = threads;
        this.workers = new Worker[threads - 1];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker(this, i + 1, threads);
            workers[i].start();
        }
    }

    @Override
    public int threads() {
        return threads;
    }

    @Override
    public void parallelFor(int n, int grain, RangeTask task) {
        if (n <= 0) {
            return;
        }
        long most = Math.max(1, (long) n / Math.max(1, grain)); // chunks of at least grain
        int chunks = (int) Math.min(threads, most);
        if (chunks <= 1 || Thread.currentThread() instanceof Worker || dispatch.isHeldByCurrentThread()
                || !dispatch.tryLock()) {
            task.range(0, n);
            return;
        }
        try {
            // Room for several chunks per thread: hand them out as threads finish, so a thread that runs slower
            // (a busy core, a vCPU whose sibling is loaded) takes fewer instead of holding everyone up.
            chunked = most >= (long) threads * WorkCursor.CHUNKS_PER_PART;
            if (chunked) {
                cursor.reset(n, threads, grain);
            }
            pending.set(chunks - 1);
            for (int c = 1; c < chunks; c++) {
                Worker w = workers[c - 1];
                w.task = task;
                w.from = (int) ((long) n * c / chunks);
                w.to = (int) ((long) n * (c + 1) / chunks);
                w.generation++; // volatile write publishes task/from/to and the pool's chunking
                LockSupport.unpark(w);
            }
            RuntimeException failure = null;
            try {
                if (chunked) {
                    drain(task);
                } else {
                    task.range(0, (int) ((long) n / chunks));
                }
            } catch (RuntimeException e) {
                failure = e;
                cursor.stop();
            }
            while (pending.get() > 0) {
                Thread.onSpinWait();
            }
            for (int c = 1; c < chunks; c++) {
                Worker w = workers[c - 1];
                if (w.failure != null && failure == null) {
                    failure = w.failure;
                }
                w.failure = null;
                w.task = null;
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            dispatch.unlock();
        }
    }

    /** Runs chunks of the current dispatch until none is left. */
    private void drain(RangeTask task) {
        for (int start = cursor.take(); start >= 0; start = cursor.take()) {
            task.range(start, cursor.end(start));
        }
    }

    private static final class Worker extends Thread {
        private final WorkerPool pool;
        volatile long generation;
        RangeTask task;
        int from;
        int to;
        RuntimeException failure;

        Worker(WorkerPool pool, int index, int total) {
            super("rlx-cpu-" + index + "/" + total);
            this.pool = pool;
            setDaemon(true);
        }

        @Override
        public void run() {
            long seen = 0;
            while (true) {
                long spinUntil = System.nanoTime() + SPIN_NS;
                while (generation == seen) {
                    if (System.nanoTime() < spinUntil) {
                        Thread.onSpinWait();
                    } else {
                        LockSupport.park(this);
                    }
                }
                seen = generation;
                try {
                    if (pool.chunked) {
                        pool.drain(task);
                    } else {
                        task.range(from, to);
                    }
                } catch (RuntimeException e) {
                    failure = e;
                    pool.cursor.stop(); // nothing more starts
                } finally {
                    pool.pending.decrementAndGet();
                }
            }
        }
    }
}
