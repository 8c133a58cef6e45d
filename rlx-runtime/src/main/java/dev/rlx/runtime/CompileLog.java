package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphPrinter;
import dev.rlx.ir.Node;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.opt.Pass;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The compile log {@code RLX_VERBOSE} asks for, on standard error: {@code 1} prints each pass (nodes after it,
 * time), the memory plan (arena, constant and param bytes) and, per compiled instance, its kernels and the
 * bytes of its weight set; {@code 2} also prints the graph after every pass. Off (null) by default.
 */
final class CompileLog {
    private final String graph;
    private final int level;
    private final PrintStream out;
    private long last = System.nanoTime();

    private CompileLog(String graph, int level, PrintStream out) {
        this.graph = graph;
        this.level = level;
        this.out = out;
    }

    /** A log for compiling {@code graph} when {@code RLX_VERBOSE} is 1 or more, else null. */
    static CompileLog fromSettings(String graph) {
        int level = Rlx.intSetting("RLX_VERBOSE", 0);
        return level <= 0 ? null : new CompileLog(graph, level, System.err);
    }

    void pass(Pass p, Graph result) {
        long now = System.nanoTime();
        out.printf(Locale.ROOT, "rlx: @%s pass %-18s %6d nodes%s %8.2f ms%n", graph, p.name(), result.size(),
                bodies(result), (now - last) / 1e6);
        if (level >= 2) {
            out.print(GraphPrinter.print(result));
        }
        last = now;
    }

    void planned(Graph input, MemoryPlan plan, long nanos) {
        out.printf(Locale.ROOT, "rlx: @%s planned %d -> %d nodes in %.1f ms: arena %,d bytes (%,d without reuse), "
                        + "constants %,d bytes, params %,d bytes bound by reference, %d control-flow regions%n", graph,
                input.size(), plan.graph().size(), nanos / 1e6, plan.arenaBytes(), plan.unsharedBytes(),
                plan.constantBytes(), plan.paramBytes(), plan.regions().size());
    }

    /** One line per compiled instance: kernels, its own device bytes and its weight set. */
    static void instantiated(String graph, String backend, int kernels, long deviceBytes, WeightSet weights) {
        if (Rlx.intSetting("RLX_VERBOSE", 0) > 0) {
            System.err.printf(Locale.ROOT, "rlx: @%s built on %s: %d kernels, %,d bytes of its own; %s%n", graph,
                    backend, kernels, deviceBytes, weights);
        }
    }

    /** " (+N in bodies)" when the graph has control-flow bodies. */
    private static String bodies(Graph g) {
        int n = 0;
        for (Node node : g.nodes()) {
            for (Graph b : dev.rlx.opt.Subgraphs.bodies(node.op())) {
                n += b.size();
            }
        }
        return n == 0 ? "" : String.format(Locale.ROOT, " (+%d in bodies)", n);
    }
}
