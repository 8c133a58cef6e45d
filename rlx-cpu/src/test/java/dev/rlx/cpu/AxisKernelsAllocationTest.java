package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.testing.Ref;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The reduce, norm and index kernels allocate nothing per run once the JIT has compiled them, even after
 * their shared vector loops were first compiled for one variant and then met the others (vectors or masks
 * that cross a call or a choice between operations can keep their boxes in compiled code; that only shows
 * up under such profile histories).
 */
class AxisKernelsAllocationTest {
    /** Runs needed in a row with zero allocation; the JIT gets up to {@link #LIMIT_NS} to get there. */
    private static final int QUIET_RUNS = 200;
    private static final long LIMIT_NS = 30_000_000_000L;

    @Test
    void axisKernels_runAllocatesNothingOnceCompiled() {
        Random rnd = new Random(1);
        warmSumsOnly(rnd);
        Graph g = new Graph("axis_kernels");
        Value x = g.input("x", Shape.of(DType.F32, 8, 40));
        Value x3 = g.input("x3", Shape.of(DType.F32, 4, 6, 20));
        Value gamma = g.param("gamma", Shape.of(DType.F32, 40));
        Value beta = g.param("beta", Shape.of(DType.F32, 40));
        Value gn = g.input("gn", Shape.of(DType.F32, 2, 4, 10));
        Value cg = g.param("cg", Shape.of(DType.F32, 4));
        Value cb = g.param("cb", Shape.of(DType.F32, 4));
        Value idx = g.input("idx", Shape.of(DType.I64, 5));
        Value sidx = g.input("sidx", Shape.of(DType.I32, 8, 40));
        List<Value> outs = new ArrayList<>();
        for (int axis : new int[] {0, 1}) { // row loops and column loops
            outs.add(g.reduceSum(x, false, axis));
            outs.add(g.reduceMean(x, false, axis));
            outs.add(g.reduceMax(x, false, axis));
            outs.add(g.reduceMin(x, false, axis));
            outs.add(g.reduceProd(x, false, axis));
            outs.add(g.argMax(x, axis, false));
            outs.add(g.argMin(x, axis, false));
            outs.add(g.softmax(x, axis));
            outs.add(g.logSoftmax(x, axis));
            outs.add(g.cumsum(x, axis, axis == 0, axis == 1));
            outs.addAll(g.topK(x, 3, axis, axis == 0));
        }
        outs.add(g.reduceSum(x3, false, 0, 2));
        outs.add(g.layerNorm(x, gamma, beta, 1, 1e-5f));
        outs.add(g.rmsNorm(x, gamma, 1e-5f));
        outs.add(g.groupNorm(gn, cg, cb, 2, 1e-5f));
        outs.add(g.gather(x, idx, 0));
        outs.add(g.scatterAdd(x, sidx, x, 1));
        g.setOutputs(outs.toArray(Value[]::new));

        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             CompiledGraph c = s.compile(g)) {
            c.setInput("x", Ref.random(rnd, -2, 2, 8, 40).floats());
            c.setInput("x3", Ref.random(rnd, -2, 2, 4, 6, 20).floats());
            c.setInput("gn", Ref.random(rnd, -2, 2, 2, 4, 10).floats());
            c.setParam("gamma", Ref.random(rnd, 0.5, 2, 40).floats());
            c.setParam("beta", Ref.random(rnd, -1, 1, 40).floats());
            c.setParam("cg", Ref.random(rnd, 0.5, 2, 4).floats());
            c.setParam("cb", Ref.random(rnd, -1, 1, 4).floats());
            c.setInput("idx", new long[] {0, -1, 3, 7, 2});
            c.setInput("sidx", Ref.randomInts(rnd, -40, 40, 8, 40).ints());
            long start = System.nanoTime();
            int quiet = 0;
            long last = -1;
            while (quiet < QUIET_RUNS && System.nanoTime() - start < LIMIT_NS) {
                long before = threads.getCurrentThreadAllocatedBytes();
                c.run();
                last = threads.getCurrentThreadAllocatedBytes() - before;
                quiet = last == 0 ? quiet + 1 : 0;
            }
            assertTrue(quiet >= QUIET_RUNS, "run still allocates " + last + " bytes after " + LIMIT_NS / 1e9 + " s");
        }
    }

    /** Gets the row and column loops compiled for SUM alone before the other kinds reach them. */
    private static void warmSumsOnly(Random rnd) {
        Graph g = new Graph("sums");
        Value x = g.input("x", Shape.of(DType.F32, 4096, 64)); // long loops, so on-stack replacement compiles them
        g.setOutputs(g.reduceSum(x, false, 0), g.reduceSum(x, false, 1));
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             CompiledGraph c = s.compile(g)) {
            c.setInput("x", Ref.random(rnd, -1, 1, 4096, 64).floats());
            for (int i = 0; i < 300; i++) {
                c.run();
            }
        }
    }
}
