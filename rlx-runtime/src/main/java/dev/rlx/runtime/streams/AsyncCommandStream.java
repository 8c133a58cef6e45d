package dev.rlx.runtime.streams;

import dev.rlx.ir.RlxException;
import dev.rlx.runtime.spi.CommandStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A command stream for host backends whose work runs on one worker thread of its own: {@link #enqueue} records work,
 * {@link #submit} hands it to the worker and returns at once, {@link #await} blocks until everything submitted has
 * run. Work runs in the order enqueued. Used by one thread at a time (the worker is the only other one).
 */
public final class AsyncCommandStream implements CommandStream {
    private final ExecutorService worker;
    private final List<Runnable> enqueued = new ArrayList<>();
    private final Deque<Future<?>> inFlight = new ArrayDeque<>();

    public AsyncCommandStream(String name) {
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Records {@code work} to run at the next {@link #submit}. */
    public void enqueue(Runnable work) {
        enqueued.add(work);
    }

    /** The executor the stream runs work on (for futures that must run in stream order). */
    ExecutorService worker() {
        return worker;
    }

    @Override
    public void submit() {
        for (Runnable r : enqueued) {
            inFlight.add(worker.submit(r));
        }
        enqueued.clear();
    }

    /**
     * @throws StreamException wrapping the first failure of submitted work (the rest still ran)
     */
    @Override
    public void await() {
        RuntimeException first = null;
        while (!inFlight.isEmpty()) {
            Future<?> f = inFlight.poll();
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamException("interrupted while waiting for the stream", e);
            } catch (ExecutionException e) {
                if (first == null) {
                    first = e.getCause() instanceof RlxException r ? r
                            : new StreamException("stream work failed: " + e.getCause(), e.getCause());
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Whether submitted work has not been awaited yet. */
    public boolean pending() {
        return !inFlight.isEmpty();
    }

    /** Waits for submitted work, then stops the worker. */
    @Override
    public void close() {
        try {
            await();
        } finally {
            worker.shutdown();
        }
    }
}
