package dev.rlx.cpu;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.rlx.testkit.cases.ControlFlowGraphs;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Control flow as the CPU runs it: only the taken branch executes (counted through a custom op), and a loop past
 * its guard fails with {@link LoopLimitException} and leaves the graph usable. (If, While and Scan values, nesting
 * included, are in the conformance suite.)
 */
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

    /** while (i < n) { i += 1; acc = acc * 2 } with n given at run time, at most {@code cap} iterations. */
    private static Graph doublingLoop(long cap) {
        Graph g = new Graph("loop");
        ControlFlowGraphs.doublingLoop(g, cap);
        return g;
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
}
