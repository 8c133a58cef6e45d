package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphVerificationException;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class CompilePipelineTest {
    /** A pass that records how often it ran and returns what {@code body} makes. */
    private static final class TestPass implements Pass {
        final String name;
        final UnaryOperator<Graph> body;
        final AtomicInteger calls = new AtomicInteger();

        TestPass(String name, UnaryOperator<Graph> body) {
            this.name = name;
            this.body = body;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Graph apply(Graph g) {
            calls.incrementAndGet();
            return body.apply(g);
        }
    }

    private static Graph valid() {
        Graph g = new Graph("ok");
        Value x = g.input("x", Shape.of(DType.F32, 4));
        g.exp(x); // dead
        g.setOutputs(g.relu(x));
        return g;
    }

    /** A graph with an input and no outputs: what a faulty rewrite might return. */
    private static Graph noOutputs(Graph in) {
        Graph broken = new Graph("broken");
        broken.input("x", Shape.of(DType.F32, 4));
        return broken;
    }

    @Test
    void run_passReturningAGraphWithoutOutputs_isCaughtBeforeTheNextPass() {
        TestPass bad = new TestPass("bad", CompilePipelineTest::noOutputs);
        TestPass after = new TestPass("after", g -> g);
        List<String> seen = new ArrayList<>();
        CompilePipeline p = new CompilePipeline(List.of(new DeadCodeElimination(), bad, after));

        GraphVerificationException e = assertThrows(GraphVerificationException.class,
                () -> p.run(valid(), (pass, g) -> seen.add(pass.name())));

        assertTrue(e.getMessage().contains("@broken") && e.getMessage().contains("no outputs"), e.getMessage());
        assertTrue(e.getMessage().contains("after pass 'bad'"), "the error names the pass: " + e.getMessage());
        assertEquals(1, bad.calls.get());
        assertEquals(0, after.calls.get(), "no pass may run on a broken graph");
        assertEquals(List.of("dce"), seen, "afterEach must not see the broken graph");
    }

    @Test
    void run_invalidInputGraph_isRejectedBeforeAnyPass() {
        TestPass first = new TestPass("first", g -> g);
        Graph g = new Graph("in");
        g.input("x", Shape.of(DType.F32, 1));
        assertThrows(GraphVerificationException.class, () -> new CompilePipeline(List.of(first)).run(g));
        assertEquals(0, first.calls.get());
    }

    @Test
    void run_passesRunInOrderAndAfterEachSeesEveryResult() {
        List<String> order = new ArrayList<>();
        TestPass a = new TestPass("a", g -> { order.add("a"); return g; });
        TestPass b = new TestPass("b", g -> { order.add("b"); return new DeadCodeElimination().apply(g); });
        List<Graph> results = new ArrayList<>();
        CompilePipeline p = new CompilePipeline(List.of(a)).then(b);
        Graph in = valid();
        Graph out = p.run(in, (pass, g) -> { order.add("after " + pass.name()); results.add(g); });

        assertEquals(List.of("a", "after a", "b", "after b"), order);
        assertSame(in, results.get(0));
        assertSame(out, results.get(1));
        assertEquals(2, out.size());
    }

    @Test
    void then_returnsANewPipelineAndLeavesTheOriginal() {
        CompilePipeline std = CompilePipeline.standard();
        CompilePipeline more = std.then(new TestPass("x", g -> g));
        assertEquals(List.of("dce"), std.passes().stream().map(Pass::name).toList());
        assertEquals(List.of("dce", "x"), more.passes().stream().map(Pass::name).toList());
        assertThrows(UnsupportedOperationException.class, () -> std.passes().add(new DeadCodeElimination()));
    }

    @Test
    void standard_dropsDeadCode() {
        Graph out = CompilePipeline.standard().run(valid());
        assertEquals(2, out.size());
    }

    @Test
    void run_emptyPipeline_returnsTheInputGraph() {
        Graph g = valid();
        assertSame(g, new CompilePipeline(List.of()).run(g));
    }
}
