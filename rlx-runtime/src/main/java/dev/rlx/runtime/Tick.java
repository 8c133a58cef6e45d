package dev.rlx.runtime;

import java.util.function.Supplier;

/**
 * A point on the monotonic clock ({@link System#nanoTime()}), for sub-millisecond timing in tools and logs.
 * Benchmarks use JMH instead.
 *
 * <pre>{@code
 * Tick t0 = Tick.now();
 * compiled.run();
 * long ns = Tick.now().elapsedNs(t0);
 * }</pre>
 */
public record Tick(long nanos) {
    public static Tick now() {
        return new Tick(System.nanoTime());
    }

    /** Nanoseconds from {@code earlier} to this tick; 0 if {@code earlier} is later. */
    public long elapsedNs(Tick earlier) {
        return Math.max(0, nanos - earlier.nanos);
    }

    public double elapsedUs(Tick earlier) {
        return elapsedNs(earlier) / 1e3;
    }

    public double elapsedMs(Tick earlier) {
        return elapsedNs(earlier) / 1e6;
    }

    /** A result and the nanoseconds it took. */
    public record Timed<T>(T result, long ns) {}

    public static <T> Timed<T> timeNs(Supplier<T> work) {
        long t0 = System.nanoTime();
        T r = work.get();
        return new Timed<>(r, Math.max(0, System.nanoTime() - t0));
    }

    /** Nanoseconds {@code work} took. */
    public static long timeNs(Runnable work) {
        long t0 = System.nanoTime();
        work.run();
        return Math.max(0, System.nanoTime() - t0);
    }
}
