package dev.rlx.bench;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * {@code ./rlx-bench/run compile-chain [PAIRS] [REPEATS]}: the time to compile a chain of PAIRS MatMul+ReLU pairs
 * (2 x PAIRS + 2 nodes; default 20,000 pairs, the 40,000-node graph of the hostile-input issue) on the CPU, with
 * no compile cache, REPEATS times in one JVM (default 3: the first is cold, the JIT compiling the compiler).
 * Prints wall time and the main thread's CPU time of each compile: on a 2-core machine the JIT's own threads take
 * much of the first compile's wall time.
 */
final class CompileChain {
    private CompileChain() {}

    static void main(String[] args) {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int r = 0; r < repeats; r++) {
            Graph g = chain(pairs, r);
            long cpu0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            try (Session s = new Session(Device.CPU, CompileOptions.defaults(), null);
                    CompiledGraph c = s.compile(g)) {
                long t1 = System.nanoTime();
                long cpu1 = mx.getCurrentThreadCpuTime();
                System.out.printf(Locale.ROOT, "compile %d: %d nodes in %.2f s wall, %.2f s main-thread CPU;"
                        + " arena %d bytes, %d kernels%n", r + 1, g.size(), (t1 - t0) / 1e9, (cpu1 - cpu0) / 1e9,
                        c.arenaBytes(), c.kernelCount());
            }
        }
    }

    private static Graph chain(int pairs, int index) {
        Graph g = new Graph("chain" + index);
        Value h = g.input("x", Shape.of(DType.F32, 8, 16));
        Value w = g.param("w", Shape.of(DType.F32, 16, 16));
        for (int i = 0; i < pairs; i++) {
            h = g.relu(g.matmul(h, w));
        }
        g.setOutputs(h);
        return g;
    }
}
