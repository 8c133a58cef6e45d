package dev.rlx.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.ManagementFactory;

/**
 * Proves a call allocates nothing once the JIT has compiled it, with the JVM's per-thread allocation counters:
 * the call runs in rounds of {@code calls} calls until one round allocates nothing, on the calling thread and on
 * the worker threads whose names start with a given prefix. Interpreted and C1 code box Vector API values until
 * C2 compiles the loops (or recompiles them after a deoptimisation), so early rounds are warm-up; an allocation in
 * compiled code shows in every round. Run allocation tests in a JVM of their own: C2's inlining depends on the
 * profiles other tests leave.
 */
public final class Allocations {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Rounds before giving up. */
    public static final int ROUNDS = 25;

    private Allocations() {}

    /** Fails unless some round of {@code calls} calls allocates nothing on this thread. */
    public static void assertSteadyStateAllocatesNothing(String what, Runnable call, int calls) {
        assertSteadyStateAllocatesNothing(what, call, calls, ROUNDS, null);
    }

    /**
     * Fails, listing what every round allocated, unless one of {@code rounds} rounds of {@code calls} calls
     * allocates nothing on this thread and on the threads named {@code workerPrefix...} (null: none).
     */
    public static void assertSteadyStateAllocatesNothing(String what, Runnable call, int calls, int rounds,
                                                         String workerPrefix) {
        StringBuilder seen = new StringBuilder();
        for (int round = 0; round < rounds; round++) {
            long workersBefore = workerBytes(workerPrefix); // listing threads allocates: outside the window
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < calls; i++) {
                call.run();
            }
            long caller = THREADS.getCurrentThreadAllocatedBytes() - before;
            long workers = workerBytes(workerPrefix) - workersBefore;
            if (caller == 0 && workers == 0) {
                return;
            }
            seen.append(String.format(" [round %d: caller %d B, workers %d B]", round, caller, workers));
        }
        fail(what + " allocated in every one of " + rounds + " rounds of " + calls + " calls:" + seen);
    }

    private static long workerBytes(String prefix) {
        if (prefix == null) {
            return 0;
        }
        long total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                total += THREADS.getThreadAllocatedBytes(t.threadId());
            }
        }
        return total;
    }
}
