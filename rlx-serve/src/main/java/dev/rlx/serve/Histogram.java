package dev.rlx.serve;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Prometheus histogram with fixed upper bounds: lock-free counts per bucket, the sum and the count, written
 * in the text exposition format (cumulative {@code _bucket{le=...}} lines, {@code _sum}, {@code _count}).
 */
final class Histogram {
    private final String name;
    private final String help;
    private final double[] bounds;
    private final AtomicLongArray counts;
    private final DoubleAdder sum = new DoubleAdder();
    private final LongAdder count = new LongAdder();

    Histogram(String name, String help, double... bounds) {
        for (int i = 1; i < bounds.length; i++) {
            if (!(bounds[i] > bounds[i - 1])) {
                throw new IllegalArgumentException("histogram " + name + ": bounds must increase");
            }
        }
        this.name = name;
        this.help = help;
        this.bounds = bounds.clone();
        this.counts = new AtomicLongArray(bounds.length + 1);
    }

    /** Latency buckets from 1 ms to 60 s. */
    static Histogram seconds(String name, String help) {
        return new Histogram(name, help, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60);
    }

    void observe(double v) {
        int i = 0;
        while (i < bounds.length && v > bounds[i]) {
            i++;
        }
        counts.incrementAndGet(i);
        sum.add(v);
        count.increment();
    }

    long count() {
        return count.sum();
    }

    void write(StringBuilder out) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" histogram\n");
        long cumulative = 0;
        for (int i = 0; i < bounds.length; i++) {
            cumulative += counts.get(i);
            out.append(name).append("_bucket{le=\"").append(format(bounds[i])).append("\"} ").append(cumulative).append('\n');
        }
        cumulative += counts.get(bounds.length);
        out.append(name).append("_bucket{le=\"+Inf\"} ").append(cumulative).append('\n');
        out.append(name).append("_sum ").append(format(sum.sum())).append('\n');
        out.append(name).append("_count ").append(cumulative).append('\n');
    }

    static String format(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%s", v);
    }
}
