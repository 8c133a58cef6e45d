package dev.rlx.runtime;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Per-kernel timing for a compiled graph, switched on by settings (see {@link Rlx#setting}):
 *
 * <ul>
 *   <li>{@code RLX_TRACE=1}: when the graph is closed, a summary per kernel (calls, total and mean time)
 *       goes to standard error;
 *   <li>{@code RLX_TRACE=2}: also one line per kernel call;
 *   <li>{@code RLX_TRACE_FILE=path.json}: a Chrome / Perfetto trace ({@code chrome://tracing},
 *       ui.perfetto.dev) of every kernel call; each graph adds its events when it is closed, so the file
 *       holds every graph of the process (on one clock), and is a complete JSON document after each.
 * </ul>
 *
 * Any other {@code RLX_TRACE} value leaves tracing off and is reported once per process on standard error.
 * Backends ask for a tracer when they compile; with tracing off there is none and nothing is measured,
 * so {@code run()} stays allocation-free.
 */
public final class Tracer {
    private final String graph;
    private final int level;
    private final Path file;
    private final PrintStream log;
    private final List<String> labels = new ArrayList<>();
    private long[] calls = new long[16];
    private long[] totalNs = new long[16];
    private long[] events = new long[0]; // (kernel, start, duration, thread) quadruples
    private int eventCount;
    /** Event times count from here, so the graphs sharing a trace file share a time line. */
    private static final long ORIGIN = System.nanoTime();
    /** Whether this process has warned about an unknown RLX_TRACE value. */
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private Tracer(String graph, int level, Path file, PrintStream log) {
        this.graph = graph;
        this.level = level;
        this.file = file;
        this.log = log;
    }

    /** Set while the runtime compiles graphs of its own (constant folding), which are not traced. */
    private static final ThreadLocal<Boolean> INTERNAL = ThreadLocal.withInitial(() -> false);

    /** Runs {@code work} with tracing off for compiles on this thread. */
    static <T> T untraced(java.util.function.Supplier<T> work) {
        boolean before = INTERNAL.get();
        INTERNAL.set(true);
        try {
            return work.get();
        } finally {
            INTERNAL.set(before);
        }
    }

    /** A tracer for {@code graph} if {@code RLX_TRACE} or {@code RLX_TRACE_FILE} asks for one, else null. */
    public static Tracer fromSettings(String graph) {
        if (INTERNAL.get()) {
            return null;
        }
        int level = level(Rlx.setting("RLX_TRACE"), System.err, WARNED);
        String f = Rlx.setting("RLX_TRACE_FILE");
        Path file = f == null || f.isBlank() ? null : Path.of(f);
        if (level <= 0 && file == null) {
            return null;
        }
        return new Tracer(graph, level, file, System.err);
    }

    /**
     * The trace level {@code RLX_TRACE} asks for: 0 when unset or blank, else 0, 1 or 2 as written; anything
     * else is 0, with a warning on {@code warn} unless {@code warned} says one was given already.
     */
    static int level(String setting, PrintStream warn, AtomicBoolean warned) {
        String v = setting == null ? "" : setting.trim();
        switch (v) {
            case "", "0" -> {
                return 0;
            }
            case "1" -> {
                return 1;
            }
            case "2" -> {
                return 2;
            }
            default -> {
                if (warned.compareAndSet(false, true)) {
                    warn.println("[rlx trace] ignoring RLX_TRACE='" + setting + "': it takes 1 (a summary per kernel at"
                            + " close) or 2 (also a line per call); tracing stays off");
                }
                return 0;
            }
        }
    }

    /** Registers a kernel; returns its index for {@link #record}. */
    public synchronized int register(String label) {
        labels.add(label);
        if (labels.size() > calls.length) {
            calls = Arrays.copyOf(calls, calls.length * 2);
            totalNs = Arrays.copyOf(totalNs, totalNs.length * 2);
        }
        return labels.size() - 1;
    }

    /** Records one call of kernel {@code k} that started at {@code startNs} (System.nanoTime) and just ended. */
    public synchronized void record(int k, long startNs) {
        long dur = System.nanoTime() - startNs;
        calls[k]++;
        totalNs[k] += dur;
        if (level >= 2) {
            log.printf(Locale.ROOT, "[rlx trace] @%s %s %.1f us%n", graph, labels.get(k), dur / 1e3);
        }
        if (file != null) {
            if ((eventCount + 1) * 4 > events.length) {
                events = Arrays.copyOf(events, Math.max(64, events.length * 2));
            }
            int e = eventCount * 4;
            events[e] = k;
            events[e + 1] = startNs - ORIGIN;
            events[e + 2] = dur;
            events[e + 3] = Thread.currentThread().threadId();
            eventCount++;
        }
    }

    /** Prints the summary and writes the trace file (if asked for). Called when the graph is closed. */
    public synchronized void close() {
        if (level >= 1) {
            summary();
        }
        if (file != null) {
            try {
                TraceFile.of(file).append(eventsJson());
            } catch (IOException e) {
                log.println("[rlx trace] could not write " + file + ": " + e.getMessage());
            }
        }
    }

    private void summary() {
        Integer[] order = new Integer[labels.size()];
        long all = 0;
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
            all += totalNs[i];
        }
        Arrays.sort(order, Comparator.comparingLong(i -> -totalNs[i]));
        log.printf(Locale.ROOT, "[rlx trace] @%s: %d kernels, %.3f ms in total%n", graph, labels.size(), all / 1e6);
        log.printf(Locale.ROOT, "[rlx trace] %10s %12s %12s %6s  %s%n", "calls", "total ms", "mean us", "share", "kernel");
        for (int i : order) {
            double mean = calls[i] == 0 ? 0 : totalNs[i] / 1e3 / calls[i];
            log.printf(Locale.ROOT, "[rlx trace] %10d %12.3f %12.1f %5.1f%%  %s%n", calls[i], totalNs[i] / 1e6, mean,
                    all == 0 ? 0.0 : 100.0 * totalNs[i] / all, labels.get(i));
        }
    }

    /** This graph's events as JSON objects separated by commas (no brackets), for {@link TraceFile#append}. */
    private byte[] eventsJson() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(buf)) {
            g.writeStartArray();
            for (int i = 0; i < eventCount; i++) {
                int e = i * 4;
                g.writeStartObject();
                g.writeStringField("name", labels.get((int) events[e]));
                g.writeStringField("cat", graph);
                g.writeStringField("ph", "X");
                g.writeNumberField("ts", events[e + 1] / 1e3);
                g.writeNumberField("dur", events[e + 2] / 1e3);
                g.writeNumberField("pid", 1);
                g.writeNumberField("tid", events[e + 3]);
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        byte[] array = buf.toByteArray();
        return Arrays.copyOfRange(array, 1, array.length - 1);
    }
}
