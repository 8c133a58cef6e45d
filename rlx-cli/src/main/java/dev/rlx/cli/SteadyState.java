package dev.rlx.cli;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Times a task at its steady state, after the JIT has compiled it: either a fixed number of warm-up runs, or
 * rounds of runs (each about {@link #ROUND_NS} long, at least {@link #MIN_ROUND} runs) until the median time per
 * run of two rounds running is within {@link #SETTLED} of the round before (giving up after
 * {@link #MAX_WARMUP_NS} of warming). Then each timed run is measured on its own.
 */
final class SteadyState {
    /** Relative change of the round median under which the time per run counts as settled. */
    static final double SETTLED = 0.05;
    /** Warming stops after this long even when the time per run still moves. */
    static final long MAX_WARMUP_NS = 15_000_000_000L;
    /** A warm-up round lasts about this long, and has at least {@link #MIN_ROUND} runs. */
    static final long ROUND_NS = 200_000_000L;
    static final int MIN_ROUND = 5;
    /** Consecutive rounds within {@link #SETTLED} of the one before that count as settled: one could be luck. */
    private static final int CALM_ROUNDS = 2;

    /** The outcome: how many warm-up runs there were, whether the time settled, and each timed run. */
    record Result(int warmupRuns, boolean settled, long[] runNs) {
        double medianMs() {
            long[] s = runNs.clone();
            Arrays.sort(s);
            return (s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0) / 1e6;
        }

        double minMs() {
            return Arrays.stream(runNs).min().orElseThrow() / 1e6;
        }

        double meanMs() {
            return Arrays.stream(runNs).average().orElseThrow() / 1e6;
        }

        /** e.g. {@code 3.412 ms per run (median of 10; min 3.301, mean 3.450) after 37 warm-up runs}. */
        String summary() {
            String warm = warmupRuns + " warm-up run" + (warmupRuns == 1 ? "" : "s")
                    + (settled ? "" : ", still changing after " + MAX_WARMUP_NS / 1_000_000_000L + " s");
            return String.format(Locale.ROOT, "%.3f ms per run (median of %d; min %.3f, mean %.3f) after %s",
                    medianMs(), runNs.length, minMs(), meanMs(), warm);
        }
    }

    private final LongSupplier clock;
    private final Progress progress;

    SteadyState(LongSupplier clock, Progress progress) {
        this.clock = clock;
        this.progress = progress;
    }

    SteadyState(Progress progress) {
        this(System::nanoTime, progress);
    }

    /**
     * Warms {@code task} up ({@code warmup} runs, or until settled when null), then times {@code runs} runs.
     */
    Result measure(Runnable task, Integer warmup, int runs) {
        int warmed;
        boolean settled = true;
        if (warmup != null) {
            for (int i = 0; i < warmup; i++) {
                task.run();
                progress.update("warming up: run " + (i + 1) + " of " + warmup);
            }
            warmed = warmup;
        } else {
            long start = clock.getAsLong();
            long first = time(task);
            warmed = 1;
            double previous = Double.NaN;
            long perRun = first;
            int calm = 0;
            while (true) {
                int n = (int) Math.max(MIN_ROUND, Math.min(10_000, ROUND_NS / Math.max(1, perRun)));
                long[] round = new long[n];
                for (int i = 0; i < n; i++) {
                    round[i] = time(task);
                }
                warmed += n;
                Arrays.sort(round);
                perRun = round[n / 2];
                progress.update(String.format(Locale.ROOT, "warming up: %d runs, now %.3f ms per run", warmed, perRun / 1e6));
                calm = Math.abs(perRun - previous) <= SETTLED * previous ? calm + 1 : 0;
                if (calm == CALM_ROUNDS) {
                    break;
                }
                if (clock.getAsLong() - start > MAX_WARMUP_NS) {
                    settled = false;
                    break;
                }
                previous = perRun;
            }
        }
        long[] ns = new long[runs];
        for (int i = 0; i < runs; i++) {
            ns[i] = time(task);
            progress.update("timing: run " + (i + 1) + " of " + runs);
        }
        return new Result(warmed, settled, ns);
    }

    private long time(Runnable task) {
        long t0 = clock.getAsLong();
        task.run();
        return clock.getAsLong() - t0;
    }
}
