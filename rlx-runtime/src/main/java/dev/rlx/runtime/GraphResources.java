package dev.rlx.runtime;

import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.Executable;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a {@link CompiledGraph} owns outside the Java heap (its executable with the arena and kernels, its stream)
 * and its hold on its weight set, released once: by {@code close()}, or by the {@link Cleaner} when the graph
 * became unreachable without being closed. It must not refer to the graph, or the graph would never become
 * unreachable. A graph reclaimed by the cleaner is reported once per process, as a warning.
 */
final class GraphResources implements Runnable {
    static final Cleaner CLEANER = Cleaner.create();
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private final String graphName;
    private final Executable exe;
    private final CommandStream stream;
    private final WeightSet weights;
    private final boolean ownsWeights;
    private volatile boolean closedExplicitly;

    GraphResources(String graphName, Executable exe, CommandStream stream, WeightSet weights, boolean ownsWeights) {
        this.graphName = graphName;
        this.exe = exe;
        this.stream = stream;
        this.weights = weights;
        this.ownsWeights = ownsWeights;
    }

    /** Marks the coming release as the owner's {@code close()} (no warning). */
    void closing() {
        closedExplicitly = true;
    }

    @Override
    public void run() {
        long bytes = 0;
        try {
            bytes = exe.deviceBytes();
            exe.close();
            stream.close();
        } finally {
            release(weights, ownsWeights);
        }
        if (!closedExplicitly && WARNED.compareAndSet(false, true)) {
            System.getLogger(CompiledGraph.class.getName()).log(System.Logger.Level.WARNING,
                    "compiled graph @" + graphName + " was not closed: its " + bytes + " bytes of device memory were"
                            + " freed when it became unreachable (close CompiledGraphs, e.g. with try-with-resources;"
                            + " reported once per process)");
        }
    }

    /** This graph's hold on {@code weights} given back; a set of its own is closed once no graph uses it. */
    static void release(WeightSet weights, boolean ownsWeights) {
        weights.release();
        if (ownsWeights && weights.users() == 0) {
            weights.close();
        }
    }
}
