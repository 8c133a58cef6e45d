package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The passes and the planner inside If/While/Scan bodies: bodies are optimised like any graph, and planned in
 * a region of the enclosing arena that lives only during the node's step.
 */
class SubgraphPlanningTest {
    private static Shape f32(int... dims) {
        return Shape.of(DType.F32, dims);
    }

    /** A body {@code a -> exp(a) * 2} with a big intermediate, plus dead code and a foldable constant. */
    private static Graph heavyBody(String name, int n) {
        Graph b = new Graph(name);
        Value a = b.input("a", f32(n));
        Value two = b.add(b.scalar(1f), b.scalar(1f)); // folds to 2
        Value big = b.exp(b.expand(b.reshape(a, 1, n), 8, n)); // [8, n] intermediate
        b.tanh(a); // dead
        b.setOutputs(b.mul(b.reduceSum(big, false, 0), two));
        return b;
    }

    private static Graph lightBody(String name, int n) {
        Graph b = new Graph(name);
        b.setOutputs(b.neg(b.input("a", f32(n))));
        return b;
    }

    private static Graph withIf(int n) {
        Graph g = new Graph("branching");
        Value x = g.input("x", f32(n));
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Value before = g.exp(x);
        Value y = g.ifElse(p, heavyBody("then", n), lightBody("else", n), before).get(0);
        g.setOutputs(g.add(y, x));
        return g;
    }

    private static boolean overlap(long a0, long a1, long b0, long b1) {
        return a0 < b1 && b0 < a1;
    }

    @Test
    void if_bodiesArePlannedInARegionLiveOnlyAtTheNode() {
        int n = 37;
        Graph g = withIf(n);
        MemoryPlan plan = MemoryPlanner.plan(g, 64, true);
        Node ifNode = g.nodes().stream().filter(x -> x.kind() == OpKind.IF).findFirst().orElseThrow();
        MemoryPlan.Region r = plan.region(ifNode.id());
        assertEquals(2, r.bodies().size());
        Op.If op = (Op.If) ifNode.op();
        assertSame(op.thenBranch(), r.bodies().get(0).graph(), "the plan is of the node's own body");
        assertEquals(Math.max(r.bodies().get(0).arenaBytes(), r.bodies().get(1).arenaBytes()), r.bytes(),
                "the branches share the region: only one runs");
        assertTrue(r.bodies().get(0).arenaBytes() >= 8L * n * 4, "the heavy branch's intermediate is in it");
        assertTrue(r.offset() + r.bytes() <= plan.arenaBytes(), plan.report());
        // Nothing live across the node shares the region's bytes: its operands and its result.
        for (Value v : List.of(ifNode.inputs().get(1), ifNode.output(), g.input("x"))) {
            MemoryPlan.Slot s = plan.slot(v);
            assertFalse(overlap(r.offset(), r.offset() + r.bytes(), s.offset(), s.offset() + s.bytes()),
                    v + " overlaps the region\n" + plan.report());
        }
        // Inside the region every body value lies within the body's arena.
        for (MemoryPlan body : r.bodies()) {
            for (MemoryPlan.Slot s : body.slots().values()) {
                if (s.storage() == MemoryPlan.Storage.ARENA) {
                    assertTrue(s.offset() + s.bytes() <= body.arenaBytes(), body.report());
                }
            }
        }
    }

    @Test
    void whileAndScan_getRegionsAndNestedBodiesGetTheirOwn() {
        int n = 11;
        Graph cond = new Graph("cond");
        Value c = cond.input("c", f32(n));
        cond.setOutputs(cond.gt(cond.reduceSum(c, false, 0), cond.scalar(100f)));
        // The loop body holds an If: a region inside a region.
        Graph body = new Graph("body");
        Value a = body.input("a", f32(n));
        Value q = body.gt(body.reduceMax(a, false, 0), body.scalar(0f));
        body.setOutputs(body.ifElse(q, heavyBody("inner_then", n), lightBody("inner_else", n), a).get(0));
        Graph g = new Graph("looping");
        Value x = g.input("x", f32(n));
        Value looped = g.whileLoop(cond, body, 16, x).get(0);

        Graph step = new Graph("step");
        Value carry = step.input("carry", f32(n));
        Value xt = step.input("xt", f32(n));
        Value sum = step.add(carry, xt);
        step.setOutputs(sum, step.exp(sum));
        Value xs = g.input("xs", f32(3, n));
        List<Value> scanned = g.scan(step, 3, 1, false, looped, xs);
        g.setOutputs(scanned.get(0), scanned.get(1));

        MemoryPlan plan = MemoryPlanner.plan(g, 16, false);
        assertEquals(2, plan.regions().size());
        MemoryPlan.Region loop = plan.region(looped.nodeId());
        assertEquals(2, loop.bodies().size(), "cond and body");
        MemoryPlan loopBody = loop.bodies().get(1);
        assertEquals(1, loopBody.regions().size(), "the If inside the loop body has a region of its own");
        MemoryPlan.Region inner = loopBody.regions().values().iterator().next();
        assertTrue(inner.offset() + inner.bytes() <= loopBody.arenaBytes(), loopBody.report());
        assertTrue(loop.bytes() >= loopBody.arenaBytes());
        assertEquals(1, plan.region(scanned.get(0).nodeId()).bodies().size());
    }

    @Test
    void standardPipeline_optimisesInsideBodies() {
        int n = 5;
        Graph g = withIf(n);
        ConstantEvaluator twos = (sub, p) -> List.of(dev.rlx.ir.Tensor.scalar(2f));
        Graph out = CompilePipeline.standard(PrecisionPolicy.F32, true, Capabilities.all(), twos).run(g);
        Op.If op = (Op.If) out.nodes().stream().filter(x -> x.kind() == OpKind.IF).findFirst().orElseThrow().op();
        Graph then = op.thenBranch();
        assertTrue(then.nodes().stream().noneMatch(x -> x.op() instanceof Op.Unary u && u.op() == dev.rlx.ir.UnaryKind.TANH),
                "dead code inside the branch is gone:\n" + dev.rlx.ir.GraphPrinter.print(then));
        assertTrue(then.nodes().stream().noneMatch(x -> x.kind() == OpKind.BINARY
                        && x.inputs().stream().allMatch(v -> v.node().op() instanceof Op.Constant)),
                "1 + 1 inside the branch is folded:\n" + dev.rlx.ir.GraphPrinter.print(then));
        assertEquals(List.of(f32(n)), then.outputShapes());
    }
}
