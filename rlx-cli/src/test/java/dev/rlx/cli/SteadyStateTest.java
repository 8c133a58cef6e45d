package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

/** SteadyState on a simulated clock: each run of the task advances it by what {@code cost} says for that run. */
class SteadyStateTest {
    private static final long MS = 1_000_000L;

    private static final class FakeTask implements Runnable {
        final long[] now = {0};
        final IntToLongFunction cost;
        int calls;

        FakeTask(IntToLongFunction cost) {
            this.cost = cost;
        }

        @Override
        public void run() {
            now[0] += cost.applyAsLong(calls++);
        }
    }

    private static SteadyState.Result measure(FakeTask task, Integer warmup, int runs) {
        Progress silent = new Progress(new PrintWriter(new StringWriter()), false);
        return new SteadyState(() -> task.now[0], silent).measure(task, warmup, runs);
    }

    @Test
    void warmsUpUntilTheTimePerRunStopsFalling() {
        // 40 slow runs (the JIT still compiling), then steady at 1 ms
        FakeTask task = new FakeTask(i -> i < 40 ? 10 * MS - i * 200_000L : MS);
        SteadyState.Result r = measure(task, null, 7);
        assertTrue(r.settled());
        assertTrue(r.warmupRuns() > 40, "warmed past the slow runs: " + r.warmupRuns());
        assertEquals(1.0, r.medianMs(), 1e-12);
        assertEquals(1.0, r.minMs(), 1e-12);
        assertEquals(7, r.runNs().length);
        assertEquals(r.warmupRuns() + 7, task.calls);
    }

    @Test
    void oneCalmRoundByLuck_isNotEnough() {
        // runs of 100 or 200 ms, so every round has the minimum of runs; round medians 200, 100, 100 (calm once),
        // 200, then 100 for good
        int round = SteadyState.MIN_ROUND;
        long[] medians = {200, 100, 100, 200, 100, 100, 100, 100};
        FakeTask task = new FakeTask(i -> i == 0 ? 100 * MS : medians[Math.min((i - 1) / round, medians.length - 1)] * MS);
        SteadyState.Result r = measure(task, null, 1);
        assertTrue(r.settled());
        assertEquals(1 + 7 * round, r.warmupRuns(), "settled at the second calm round in a row, the 7th");
    }

    @Test
    void aFixedWarmup_isExactlyThatMany() {
        FakeTask task = new FakeTask(i -> i < 5 ? 9 * MS : 2 * MS + (i % 3) * MS);
        SteadyState.Result r = measure(task, 5, 3);
        assertEquals(5, r.warmupRuns());
        assertEquals(8, task.calls);
        assertEquals(3.0, r.medianMs(), 1e-12); // runs 5, 6, 7 cost 4, 2, 3 ms
        assertEquals(2.0, r.minMs(), 1e-12);
        assertEquals(3.0, r.meanMs(), 1e-12);
        assertTrue(r.summary().startsWith("3.000 ms per run (median of 3; min 2.000, mean 3.000) after 5 warm-up runs"),
                r.summary());
    }

    @Test
    void aTimeThatNeverSettles_stopsAtTheLimitAndSaysSo() {
        // 3% slower every run: even the shortest round (5 runs) moves its median by over 15%
        FakeTask growing = new FakeTask(i -> (long) (MS * Math.pow(1.03, i)));
        SteadyState.Result r = measure(growing, null, 2);
        assertFalse(r.settled());
        assertTrue(growing.now[0] >= SteadyState.MAX_WARMUP_NS, "warmed " + growing.now[0] / 1e9 + " s");
        assertTrue(r.summary().contains("still changing after 15 s"), r.summary());
    }

    @Test
    void zeroWarmup_timesAtOnce() {
        FakeTask task = new FakeTask(i -> (i + 1) * MS);
        SteadyState.Result r = measure(task, 0, 2);
        assertEquals(0, r.warmupRuns());
        assertEquals(1.5, r.medianMs(), 1e-12, "the median of an even count is the mean of the middle two");
        assertTrue(r.summary().endsWith("after 0 warm-up runs"), r.summary());
    }
}
