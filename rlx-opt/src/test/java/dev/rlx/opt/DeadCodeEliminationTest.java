package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeadCodeEliminationTest {
    private static final Shape S = Shape.of(DType.F32, 2, 3);

    @Test
    void apply_deadNodes_areDroppedAndInputsAndParamsKept() {
        Graph g = new Graph("dce");
        Value x = g.input("x", S);
        Value unusedIn = g.input("unused_in", S);
        Value w = g.param("w", S);
        Value unusedParam = g.param("unused_w", Shape.of(DType.I32, 4));
        Value dead1 = g.exp(x);
        g.neg(dead1);                   // reads a dead node: dead too
        Value y = g.add(x, w);
        g.relu(unusedIn);               // reads an unused input: dead
        g.setOutputs(g.relu(y));

        Graph out = new DeadCodeElimination().apply(g);

        assertEquals(9, g.size(), "the input graph is not modified");
        assertEquals(6, out.size(), out.toString());
        assertEquals(List.of("x", "unused_in"), out.inputs().stream().map(out::nameOf).toList());
        assertEquals(List.of("w", "unused_w"), out.params().stream().map(out::nameOf).toList());
        assertEquals(List.of(S, S), out.inputShapes());
        assertEquals(unusedParam.shape(), out.param("unused_w").shape());
        assertEquals(List.of(S), out.outputShapes());
        assertTrue(out.nodes().stream().noneMatch(n -> n.kind() == OpKind.UNARY && n.op().label().equals("exp")), out.toString());
        assertEquals(List.of(), out.verify().stream().filter(m -> m.contains("do not contribute") || m.contains("does not")).toList());
    }

    @Test
    void apply_result_matchesTheGraphBuiltWithoutDeadNodes() {
        Graph g = new Graph("a");
        Value x = g.input("x", S);
        Value w = g.param("w", S);
        g.sigmoid(g.mul(x, w));
        Value y = g.add(x, w);
        g.tanh(y);
        g.setOutputs(g.relu(y), y);

        Graph expected = new Graph("b");
        Value ex = expected.input("x", S);
        Value ew = expected.param("w", S);
        Value ey = expected.add(ex, ew);
        expected.setOutputs(expected.relu(ey), ey);

        assertEquals(expected.fingerprint(), new DeadCodeElimination().apply(g).fingerprint());
    }

    @Test
    void apply_namedNodes_keepTheirNames() {
        Graph g = new Graph("names");
        Value x = g.input("x", S);
        g.name(g.exp(x), "dead_exp");
        Value h = g.name(g.relu(x), "hidden");
        Value y = g.name(g.neg(h), "logits");
        g.setOutputs(y);

        Graph out = new DeadCodeElimination().apply(g);

        assertEquals(3, out.size());
        assertEquals("x", out.nameOf(out.outputs().get(0).node().inputs().get(0).node().inputs().get(0)));
        assertEquals("hidden", out.node(1).name());
        assertEquals("logits", out.node(2).name());
        assertEquals("logits", out.outputs().get(0).node().name());
        assertTrue(out.nodes().stream().map(Node::name).noneMatch("dead_exp"::equals));
    }

    @Test
    void apply_nothingDead_returnsTheSameGraph() {
        Graph g = new Graph("live");
        Value x = g.input("x", S);
        g.setOutputs(g.relu(x));
        assertSame(g, new DeadCodeElimination().apply(g));
        assertEquals("dce", new DeadCodeElimination().name());
    }

    @Test
    void apply_multiOutputNodeWithOneOutputUsed_keepsTheNode() {
        Graph g = new Graph("topk");
        Value x = g.input("x", Shape.of(DType.F32, 3, 5));
        List<Value> tk = g.topK(x, 2, -1, true);
        g.exp(tk.get(0)); // dead reader of the unused output
        g.setOutputs(tk.get(1));

        Graph out = new DeadCodeElimination().apply(g);
        assertEquals(2, out.size());
        assertEquals(OpKind.TOP_K, out.outputs().get(0).node().kind());
        assertEquals(1, out.outputs().get(0).outputIndex());
        assertEquals(Shape.of(DType.I64, 3, 2), out.outputs().get(0).shape());
    }

    @Test
    void apply_repeatedOutput_mapsBothPositions() {
        Graph g = new Graph("rep");
        Value x = g.input("x", S);
        g.neg(x);
        Value y = g.relu(x);
        g.setOutputs(y, x, y);
        Graph out = new DeadCodeElimination().apply(g);
        assertEquals(3, out.outputs().size());
        assertSame(out.outputs().get(0), out.outputs().get(0));
        assertEquals(out.outputs().get(0), out.outputs().get(2));
        assertEquals(out.input("x"), out.outputs().get(1));
    }
}
