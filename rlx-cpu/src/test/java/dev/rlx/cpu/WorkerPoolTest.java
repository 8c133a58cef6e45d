package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class WorkerPoolTest {

    @Test
    void everyIndexRunsExactlyOnceInChunksOfAtLeastTheGrain() {
        int[][] cases = {{1, 1}, {2, 1}, {7, 1}, {16, 1}, {17, 1}, {1000, 1}, {1000, 7}, {100_003, 3}, {50, 100}};
        for (int threads : new int[] {2, 3, 4}) {
            WorkerPool pool = WorkerPool.shared(threads);
            for (int[] c : cases) {
                int n = c[0];
                int grain = c[1];
                AtomicIntegerArray seen = new AtomicIntegerArray(n);
                AtomicInteger shortChunks = new AtomicInteger();
                pool.parallelFor(n, grain, (from, to) -> {
                    if (to - from < Math.min(grain, n)) {
                        shortChunks.incrementAndGet();
                    }
                    for (int i = from; i < to; i++) {
                        seen.incrementAndGet(i);
                    }
                });
                for (int i = 0; i < n; i++) {
                    assertEquals(1, seen.get(i), "index " + i + " of n " + n + ", grain " + grain + ", threads " + threads);
                }
                assertTrue(shortChunks.get() <= 1, "only the last chunk may be shorter than the grain: n " + n);
            }
        }
    }

    @Test
    void aSlowThreadTakesFewerChunks() throws Exception {
        // The caller blocks in its first chunk until the other thread has run every other index: with one static
        // half per thread that never happens; handed out chunk by chunk, the worker takes all the rest.
        WorkerPool pool = WorkerPool.shared(2);
        int n = 1000;
        Thread caller = Thread.currentThread();
        AtomicInteger byWorker = new AtomicInteger();
        AtomicInteger byCaller = new AtomicInteger();
        CountDownLatch restDone = new CountDownLatch(1);
        boolean[] waited = new boolean[1];
        pool.parallelFor(n, 1, (from, to) -> {
            if (Thread.currentThread() == caller) {
                byCaller.addAndGet(to - from);
                if (!waited[0]) {
                    waited[0] = true;
                    try {
                        assertTrue(restDone.await(20, TimeUnit.SECONDS), "the worker did not take the caller's share");
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            } else if (byWorker.addAndGet(to - from) + byCaller.get() == n) {
                restDone.countDown();
            }
        });
        assertEquals(n, byWorker.get() + byCaller.get());
        assertTrue(byCaller.get() <= n / 16 + 1, "the blocked caller ran one chunk, not half: " + byCaller.get());
    }

    @Test
    void aFailureInAnyChunkReachesTheCallerAndThePoolStaysUsable() {
        WorkerPool pool = WorkerPool.shared(2);
        IllegalStateException boom = new IllegalStateException("boom");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> pool.parallelFor(1000, 1,
                (from, to) -> {
                    if (from <= 900 && 900 < to) {
                        throw boom;
                    }
                }));
        assertSame(boom, thrown);
        AtomicInteger sum = new AtomicInteger();
        pool.parallelFor(1000, 1, (from, to) -> sum.addAndGet(to - from));
        assertEquals(1000, sum.get());
    }

    @Test
    void workSubmittedFromInsideAChunkRunsInline() {
        // one outer chunk per thread; each submits slow inner work, which must stay on its own thread (the
        // dispatching thread holds the pool: dispatching again from it would hand the workers a second job)
        WorkerPool pool = WorkerPool.shared(2);
        AtomicInteger inner = new AtomicInteger();
        AtomicInteger elsewhere = new AtomicInteger();
        pool.parallelFor(2, 1, (from, to) -> {
            Thread outer = Thread.currentThread();
            pool.parallelFor(1000, 1, (a, b) -> {
                inner.addAndGet(b - a);
                if (Thread.currentThread() != outer) {
                    elsewhere.incrementAndGet();
                }
                LockSupport.parkNanos(200_000); // slow enough for an idle worker to take chunks if offered
            });
        });
        assertEquals(0, elsewhere.get(), "inner chunks ran on another thread");
        assertEquals(2000, inner.get(), "each outer chunk ran the whole inner range once");
    }
}
