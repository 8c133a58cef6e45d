package dev.rlx.cpu;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.Attrs;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.LoopLimitException;
import dev.rlx.runtime.OpRegistry;
import dev.rlx.runtime.Session;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** If, While and Scan really execute: only the taken branch runs, loops run as often as the data says. */
class ControlFlowTest {
    private static final Shape F4 = Shape.of(DType.F32, 4);
    private static final Shape SCALAR = Shape.scalar(DType.F32);

    @AfterEach
    void cleanUp() {
        OpRegistry.global().remove("count_calls");
    }

    /** A branch that multiplies by {@code factor} and counts how often it ran through a custom op. */
    private static Graph countingBranch(String name, float factor, AtomicInteger calls) {
        OpRegistry.global().register("count_calls", (in, a) -> List.of(in.get(0)), Device.CPU, (in, out, a) -> {
            calls.incrementAndGet();
            for (long i = 0; i < in.get(0).size(); i++) {
                out.get(0).data().setAtIndex(JAVA_FLOAT, i, in.get(0).data().getAtIndex(JAVA_FLOAT, i));
            }
        });
        Graph b = new Graph(name);
        Value x = b.input("x", F4);
        Value counted = OpRegistry.global().apply(b, "count_calls", Attrs.EMPTY, x).get(0);
        b.setOutputs(b.mul(counted, b.scalar(factor)));
        return b;
    }

    @Test
    void if_runsOnlyTheTakenBranch() {
        AtomicInteger calls = new AtomicInteger();
        Graph then = countingBranch("then", 2f, calls);
        Graph otherwise = new Graph("else");
        otherwise.setOutputs(otherwise.neg(otherwise.input("x", F4)));

        Graph g = new Graph("if");
        Value x = g.input("x", F4);
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        g.setOutputs(g.ifElse(p, then, otherwise, x).get(0));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("x", new float[] {1, 2, 3, 4});
            c.setInput("p", new boolean[] {false});
            c.run();
            assertArrayEquals(new float[] {-1, -2, -3, -4}, c.output(0).toFloatArray());
            assertEquals(0, calls.get(), "the then-branch must not run when the predicate is false");
            c.setInput("p", new boolean[] {true});
            c.run();
            assertArrayEquals(new float[] {2, 4, 6, 8}, c.output(0).toFloatArray());
            assertEquals(1, calls.get());
        }
    }

    /** while (i < n) { i += 1; acc = acc * 2 } with n given at run time. */
    private static Graph doublingLoop(long cap) {
        Graph cond = new Graph("cond");
        Value ci = cond.input("i", SCALAR);
        Value cn = cond.input("n", SCALAR);
        cond.input("acc", F4);
        cond.setOutputs(cond.lt(ci, cn));
        Graph body = new Graph("body");
        Value bi = body.input("i", SCALAR);
        Value bn = body.input("n", SCALAR);
        Value bacc = body.input("acc", F4);
        body.setOutputs(body.add(bi, body.scalar(1f)), bn, body.mul(bacc, body.scalar(2f)));

        Graph g = new Graph("loop");
        Value n = g.input("n", SCALAR);
        Value acc = g.input("acc", F4);
        List<Value> out = g.whileLoop(cond, body, cap, g.scalar(0f), n, acc);
        g.setOutputs(out.get(0), out.get(2));
        return g;
    }

    @Test
    void while_iteratesAsManyTimesAsTheDataSays() {
        Graph g = doublingLoop(-1);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("acc", new float[] {1, -1, 0.5f, 3});
            for (int n : new int[] {0, 1, 5, 20}) {
                c.setInput("n", new float[] {n});
                c.run();
                assertArrayEquals(new float[] {n}, c.output(0).toFloatArray(), "iterations for n=" + n);
                float f = (float) Math.pow(2, n);
                assertArrayEquals(new float[] {f, -f, 0.5f * f, 3 * f}, c.output(1).toFloatArray());
            }
        }
    }

    @Test
    void while_guard_allowsExactlyMaxIterations_thenFailsClearly() {
        Graph g = doublingLoop(3);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("acc", new float[] {1, 1, 1, 1});
            c.setInput("n", new float[] {3});
            c.run();
            assertArrayEquals(new float[] {8, 8, 8, 8}, c.output(1).toFloatArray());

            c.setInput("n", new float[] {10});
            LoopLimitException e = assertThrows(LoopLimitException.class, c::run);
            assertEquals(3, e.limit());
            assertTrue(e.getMessage().contains("while") && e.getMessage().contains("3 iterations"), e.getMessage());

            c.setInput("n", new float[] {2}); // still usable after the failed run
            c.run();
            assertArrayEquals(new float[] {4, 4, 4, 4}, c.output(1).toFloatArray());
        }
    }

    @Test
    void scan_cumulativeProduct() {
        // carry' = carry * x_t, y_t = carry': the running product of the rows of xs
        Graph body = new Graph("prod");
        Value c = body.input("carry", F4);
        Value x = body.input("x", F4);
        Value next = body.mul(c, x);
        body.setOutputs(next, next);
        Graph g = new Graph("cumprod");
        List<Value> out = g.scan(body, 5, 1, false, g.input("one", F4), g.input("xs", Shape.of(DType.F32, 5, 4)));
        g.setOutputs(out.get(1));
        float[] xs = new float[20];
        java.util.Random r = new java.util.Random(8);
        for (int i = 0; i < xs.length; i++) {
            xs[i] = 0.5f + r.nextFloat();
        }
        double[] got = Runner.run(g, Map.of("one", new float[] {1, 1, 1, 1}, "xs", xs)).get(0);
        double[] acc = {1, 1, 1, 1};
        for (int t = 0; t < 5; t++) {
            for (int j = 0; j < 4; j++) {
                acc[j] *= xs[t * 4 + j];
                assertEquals(acc[j], got[t * 4 + j], 1e-6 * Math.abs(acc[j]), "step " + t + " lane " + j);
            }
        }
    }

    @Test
    void nested_loopInsideABranch() {
        // if (flag) { while (i < 4) { i++; acc *= 2 } } else { acc - 1 }: the loop only runs when taken
        Graph cond = new Graph("cond");
        cond.setOutputs(cond.lt(cond.input("i", SCALAR), cond.scalar(4f)));
        cond.input("acc", SCALAR);
        Graph body = new Graph("body");
        Value bi = body.input("i", SCALAR);
        Value bacc = body.input("acc", SCALAR);
        body.setOutputs(body.add(bi, body.scalar(1f)), body.mul(bacc, body.scalar(2f)));
        Graph then = new Graph("then");
        Value ta = then.input("acc", SCALAR);
        then.setOutputs(then.whileLoop(cond, body, 100, then.scalar(0f), ta).get(1));
        Graph otherwise = new Graph("else");
        otherwise.setOutputs(otherwise.sub(otherwise.input("acc", SCALAR), otherwise.scalar(1f)));
        Graph g = new Graph("nested");
        g.setOutputs(g.ifElse(g.input("flag", Shape.scalar(DType.BOOL)), then, otherwise, g.input("acc", SCALAR)).get(0));
        assertArrayEquals(new double[] {48}, Runner.run(g, Map.of("flag", new boolean[] {true}, "acc", new float[] {3})).get(0));
        assertArrayEquals(new double[] {2}, Runner.run(g, Map.of("flag", new boolean[] {false}, "acc", new float[] {3})).get(0));
    }

    /** carry' = carry + x_t; y_t = carry' * 10: a running sum and its trajectory. */
    private static Graph runningSum(boolean reverse) {
        Graph body = new Graph("step");
        Value c = body.input("carry", F4);
        Value x = body.input("x", F4);
        Value next = body.add(c, x);
        body.setOutputs(next, body.mul(next, body.scalar(10f)));
        Graph g = new Graph("scan");
        Value init = g.input("init", F4);
        Value xs = g.input("xs", Shape.of(DType.F32, 3, 4));
        List<Value> out = g.scan(body, 3, 1, reverse, init, xs);
        g.setOutputs(out);
        return g;
    }

    @Test
    void scan_forwardAndReverse() {
        float[] xs = {1, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400};
        float[] init = {0.5f, 0.5f, 0.5f, 0.5f};
        List<double[]> fwd = Runner.run(runningSum(false), Map.of("init", init, "xs", xs));
        assertArrayEquals(new double[] {111.5, 222.5, 333.5, 444.5}, fwd.get(0));
        assertArrayEquals(new double[] {15, 25, 35, 45, 115, 225, 335, 445, 1115, 2225, 3335, 4445}, fwd.get(1));
        List<double[]> rev = Runner.run(runningSum(true), Map.of("init", init, "xs", xs));
        assertArrayEquals(new double[] {111.5, 222.5, 333.5, 444.5}, rev.get(0));
        // reverse visits t = 2, 1, 0 and stores y_t at its own index
        assertArrayEquals(new double[] {1115, 2225, 3335, 4445, 1105, 2205, 3305, 4405, 1005, 2005, 3005, 4005}, rev.get(1));
    }

    @Test
    void nested_ifInsideWhileBody() {
        // body: i += 1; acc = (i is odd) ? acc + 1 : acc * 3, i.e. a data-dependent branch per iteration
        Graph odd = new Graph("odd");
        odd.setOutputs(odd.add(odd.input("a", SCALAR), odd.scalar(1f)));
        Graph even = new Graph("even");
        even.setOutputs(even.mul(even.input("a", SCALAR), even.scalar(3f)));
        Graph body = new Graph("body");
        Value i = body.input("i", SCALAR);
        Value acc = body.input("acc", SCALAR);
        Value ni = body.add(i, body.scalar(1f));
        Value isOdd = body.eq(body.mod(ni, body.scalar(2f)), body.scalar(1f));
        body.setOutputs(ni, body.ifElse(isOdd, odd, even, acc).get(0));
        Graph cond = new Graph("cond");
        Value ci = cond.input("i", SCALAR);
        cond.input("acc", SCALAR);
        cond.setOutputs(cond.lt(ci, cond.scalar(5f)));
        Graph g = new Graph("nested");
        List<Value> out = g.whileLoop(cond, body, -1, g.scalar(0f), g.input("acc", SCALAR));
        g.setOutputs(out.get(1));
        // acc: 1 -> 2 (i=1) -> 6 (i=2) -> 7 (i=3) -> 21 (i=4) -> 22 (i=5)
        assertArrayEquals(new double[] {22}, Runner.run(g, Map.of("acc", new float[] {1})).get(0));
    }
}
