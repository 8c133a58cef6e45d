package dev.rlx.spark;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The models of this JVM (a Spark executor, or the driver in local mode), keyed by model and options: each is
 * loaded once, lazily, by the first task that needs it, and then shared by every task of the JVM. A model's
 * per-task instances (what holds compiled graphs and their arenas, which one thread uses at a time) are pooled:
 * a task borrows one, or makes one if all are in use, and gives it back when it ends, so a JVM running N tasks at
 * once holds at most N instances of a model, each compiled shape prepared once for all of them (see
 * {@link LoadedModel#compiles()}).
 */
public final class ExecutorModels {
    private static final ConcurrentHashMap<String, Entry> ENTRIES = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<String, AtomicInteger> LOADS = new ConcurrentHashMap<>();

    private ExecutorModels() {}

    /** A model loaded once per JVM: what its per-task instances share. */
    public interface LoadedModel<I extends AutoCloseable> extends AutoCloseable {
        /** A new instance using {@code threads} worker threads, for one task at a time. */
        I open(int threads);

        /** Programs compiled so far (each shape once, whichever instance asked first). */
        long compiles();

        /** Bytes of weights the model holds for all its instances together, or -1 if it does not say. */
        default long weightBytes() {
            return -1;
        }

        @Override
        void close();
    }

    /**
     * What this JVM holds of one model: loads (1 unless {@link #clear()} ran), instances made, compiles, and the
     * bytes of weights (held once, whatever the number of instances; -1 if the model does not say).
     */
    public record Stats(String key, int loads, int instances, int idle, long compiles, long weightBytes) {}

    private record Entry(LoadedModel<?> model, ConcurrentHashMap<Integer, ConcurrentLinkedDeque<AutoCloseable>> idle,
                         AtomicInteger instances) {}

    /** The model {@code key}, loaded by {@code load} if this JVM has not loaded it yet (concurrent first uses wait). */
    @SuppressWarnings("unchecked")
    static <M extends LoadedModel<?>> M model(String key, Supplier<M> load) {
        return (M) ENTRIES.computeIfAbsent(key, k -> {
            LOADS.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
            return new Entry(load.get(), new ConcurrentHashMap<>(), new AtomicInteger());
        }).model();
    }

    /**
     * An instance of the model {@code key} (loaded with {@link #model}) with {@code threads} threads for the
     * calling task: an idle one, else a new one. Give it back with {@link #release}, once.
     */
    @SuppressWarnings("unchecked")
    static <I extends AutoCloseable> I borrow(String key, int threads) {
        Entry e = ENTRIES.get(key);
        if (e == null) {
            throw new IllegalStateException("model " + key + " is not loaded"); // a bug of this package
        }
        AutoCloseable idle = e.idle().computeIfAbsent(threads, t -> new ConcurrentLinkedDeque<>()).pollFirst();
        if (idle != null) {
            return (I) idle;
        }
        I made = ((LoadedModel<I>) e.model()).open(threads);
        e.instances().incrementAndGet();
        return made;
    }

    /** Gives back an instance {@link #borrow} handed out. */
    static void release(String key, int threads, AutoCloseable instance) {
        Entry e = ENTRIES.get(key);
        if (e == null) {
            closeQuietly(instance); // cleared meanwhile
            return;
        }
        e.idle().computeIfAbsent(threads, t -> new ConcurrentLinkedDeque<>()).addFirst(instance);
    }

    /** The models this JVM holds, by key. */
    public static Map<String, Stats> stats() {
        Map<String, Stats> out = new TreeMap<>();
        ENTRIES.forEach((k, e) -> out.put(k, new Stats(k, LOADS.getOrDefault(k, new AtomicInteger()).get(),
                e.instances().get(), e.idle().values().stream().mapToInt(ConcurrentLinkedDeque::size).sum(),
                e.model().compiles(), e.model().weightBytes())));
        return out;
    }

    /** Closes and forgets every idle instance and model (tests; instances in use are closed when given back). */
    public static void clear() {
        for (String k : ENTRIES.keySet()) {
            Entry e = ENTRIES.remove(k);
            if (e != null) {
                e.idle().values().forEach(q -> q.forEach(ExecutorModels::closeQuietly));
                e.model().close();
            }
        }
        LOADS.clear();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing frees memory; nothing to report to a task that has finished
        }
    }
}
