package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.fail;

import dev.rlx.testkit.reference.Ref;
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
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * The reduce, norm and index kernels allocate nothing per run once the JIT has compiled them, even after
 * their shared vector loops were first compiled for one variant and then met the others (vectors or masks
 * that cross a call or a choice between operations can keep their boxes in compiled code; that only shows
 * up under such profile histories).
 */
@Tag("allocation") // runs in its own JVM: see the surefire configuration
class AxisKernelsAllocationTest {
    /** Runs needed in a row with zero allocation; the JIT gets up to {@link #LIMIT_NS} to get there. */
    private static final int QUIET_RUNS = 200;
    private static final long LIMIT_NS = 30_000_000_000L;

    /** The graph's inputs and parameters, declared the same way in the full graph and in each one-op graph. */
    private record Inputs(Value x, Value x3, Value gamma, Value beta, Value gn, Value cg, Value cb, Value idx, Value sidx) {
        static Inputs declare(Graph g) {
            return new Inputs(g.input("x", Shape.of(DType.F32, 8, 40)), g.input("x3", Shape.of(DType.F32, 4, 6, 20)),
                    g.param("gamma", Shape.of(DType.F32, 40)), g.param("beta", Shape.of(DType.F32, 40)),
                    g.input("gn", Shape.of(DType.F32, 2, 4, 10)), g.param("cg", Shape.of(DType.F32, 4)),
                    g.param("cb", Shape.of(DType.F32, 4)), g.input("idx", Shape.of(DType.I64, 5)),
                    g.input("sidx", Shape.of(DType.I32, 8, 40)));
        }
    }

    private record Case(String name, Function<Inputs, List<Value>> build) {}

    private static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (int axis : new int[] {0, 1}) { // row loops and column loops
            int a = axis;
            cases.add(new Case("reduceSum@" + a, in -> List.of(in.x.graph().reduceSum(in.x, false, a))));
            cases.add(new Case("reduceMean@" + a, in -> List.of(in.x.graph().reduceMean(in.x, false, a))));
            cases.add(new Case("reduceMax@" + a, in -> List.of(in.x.graph().reduceMax(in.x, false, a))));
            cases.add(new Case("reduceMin@" + a, in -> List.of(in.x.graph().reduceMin(in.x, false, a))));
            cases.add(new Case("reduceProd@" + a, in -> List.of(in.x.graph().reduceProd(in.x, false, a))));
            cases.add(new Case("argMax@" + a, in -> List.of(in.x.graph().argMax(in.x, a, false))));
            cases.add(new Case("argMin@" + a, in -> List.of(in.x.graph().argMin(in.x, a, false))));
            cases.add(new Case("softmax@" + a, in -> List.of(in.x.graph().softmax(in.x, a))));
            cases.add(new Case("logSoftmax@" + a, in -> List.of(in.x.graph().logSoftmax(in.x, a))));
            cases.add(new Case("cumsum@" + a, in -> List.of(in.x.graph().cumsum(in.x, a, a == 0, a == 1))));
            cases.add(new Case("topK@" + a, in -> in.x.graph().topK(in.x, 3, a, a == 0)));
        }
        cases.add(new Case("reduceSum@0,2", in -> List.of(in.x3.graph().reduceSum(in.x3, false, 0, 2))));
        cases.add(new Case("layerNorm", in -> List.of(in.x.graph().layerNorm(in.x, in.gamma, in.beta, 1, 1e-5f))));
        cases.add(new Case("rmsNorm", in -> List.of(in.x.graph().rmsNorm(in.x, in.gamma, 1e-5f))));
        cases.add(new Case("groupNorm", in -> List.of(in.gn.graph().groupNorm(in.gn, in.cg, in.cb, 2, 1e-5f))));
        cases.add(new Case("gather", in -> List.of(in.x.graph().gather(in.x, in.idx, 0))));
        cases.add(new Case("scatterAdd", in -> List.of(in.x.graph().scatterAdd(in.x, in.sidx, in.x, 1))));
        return cases;
    }

    @Test
    void axisKernels_runAllocatesNothingOnceCompiled() {
        Random rnd = new Random(1);
        warmSumsOnly(rnd);
        Graph g = new Graph("axis_kernels");
        Inputs in = Inputs.declare(g);
        List<Value> outs = new ArrayList<>();
        for (Case k : cases()) {
            outs.addAll(k.build.apply(in));
        }
        g.setOutputs(outs.toArray(Value[]::new));
        long last = bytesPerRunAfterWarmUp(g, rnd, LIMIT_NS);
        if (last != 0) {
            // name the culprits: the same compiled loops run each op alone
            StringBuilder culprits = new StringBuilder();
            for (Case k : cases()) {
                Graph one = new Graph(k.name);
                one.setOutputs(k.build.apply(Inputs.declare(one)).toArray(Value[]::new));
                long bytes = bytesPerRunAfterWarmUp(one, new Random(1), 2_000_000_000L);
                if (bytes != 0) {
                    culprits.append(' ').append(k.name).append('=').append(bytes).append(" B");
                }
            }
            fail("run still allocates " + last + " bytes after " + LIMIT_NS / 1e9 + " s; alone:" + culprits);
        }
    }

    /** Runs {@code g} until {@link #QUIET_RUNS} runs in a row allocate nothing; returns 0, or the last run's bytes. */
    private static long bytesPerRunAfterWarmUp(Graph g, Random rnd, long limitNs) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             CompiledGraph c = s.compile(g)) {
            set(c, "x", Ref.random(rnd, -2, 2, 8, 40).floats());
            set(c, "x3", Ref.random(rnd, -2, 2, 4, 6, 20).floats());
            set(c, "gn", Ref.random(rnd, -2, 2, 2, 4, 10).floats());
            set(c, "gamma", Ref.random(rnd, 0.5, 2, 40).floats());
            set(c, "beta", Ref.random(rnd, -1, 1, 40).floats());
            set(c, "cg", Ref.random(rnd, 0.5, 2, 4).floats());
            set(c, "cb", Ref.random(rnd, -1, 1, 4).floats());
            set(c, "idx", new long[] {0, -1, 3, 7, 2});
            set(c, "sidx", Ref.randomInts(rnd, -40, 40, 8, 40).ints());
            long start = System.nanoTime();
            int quiet = 0;
            long last = -1;
            while (quiet < QUIET_RUNS && System.nanoTime() - start < limitNs) {
                long before = threads.getCurrentThreadAllocatedBytes();
                c.run();
                last = threads.getCurrentThreadAllocatedBytes() - before;
                quiet = last == 0 ? quiet + 1 : 0;
            }
            return quiet >= QUIET_RUNS ? 0 : last;
        }
    }

    /** Binds a slot the graph has; a one-op graph lacks most of them. */
    private static void set(CompiledGraph c, String name, Object values) {
        boolean param = c.paramNames().contains(name);
        if (!param && !c.inputNames().contains(name)) {
            return;
        }
        switch (values) {
            case float[] f when param -> c.setParam(name, f);
            case float[] f -> c.setInput(name, f);
            case long[] l -> c.setInput(name, l);
            case int[] i -> c.setInput(name, i);
            default -> throw new IllegalArgumentException(name);
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
