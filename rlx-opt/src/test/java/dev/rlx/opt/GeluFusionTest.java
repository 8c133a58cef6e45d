package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** Which written-out erf GELUs become one {@code gelu}, and which stay as they are. */
class GeluFusionTest {
    private static Graph graph(BiFunction<Graph, Value, Value> body) {
        Graph g = new Graph("gelu");
        Value x = g.input("x", Shape.of(DType.F32, 3, 8));
        g.setOutputs(body.apply(g, x));
        return g;
    }

    private static void assertFusedToGelu(Graph g) {
        Graph out = new DeadCodeElimination().apply(new GeluFusion().apply(g));
        out.verify();
        List<Node> ops = out.nodes().stream().filter(n -> n.kind() != OpKind.INPUT).toList();
        assertEquals(1, ops.size(), "nodes left: " + out);
        assertEquals(new Op.Unary(UnaryKind.GELU), ops.get(0).op());
        assertEquals(out.inputs().get(0), ops.get(0).inputs().get(0));
    }

    @Test
    void pytorchExportForm_becomesGelu() {
        // x * (erf(x / 1.4142135) + 1) * 0.5, as torch.onnx.export writes nn.GELU()
        assertFusedToGelu(graph((g, x) -> g.mul(g.mul(x, g.add(g.erf(g.div(x, g.scalar(1.4142135f))), g.scalar(1f))),
                g.scalar(0.5f))));
    }

    @Test
    void halfFirst_reciprocalScale_oneOnTheLeft_becomesGelu() {
        assertFusedToGelu(graph((g, x) -> g.mul(g.mul(g.scalar(0.5f), x),
                g.add(g.scalar(1f), g.erf(g.mul(g.scalar(0.70710678f), x))))));
    }

    @Test
    void otherConstants_areLeftAlone() {
        Graph g = graph((g2, x) -> g2.mul(g2.mul(x, g2.add(g2.erf(g2.div(x, g2.scalar(2f))), g2.scalar(1f))),
                g2.scalar(0.5f)));
        assertSame(g, new GeluFusion().apply(g));
    }

    @Test
    void erfReadElsewhere_isLeftAlone() {
        Graph g = new Graph("gelu");
        Value x = g.input("x", Shape.of(DType.F32, 3, 8));
        Value erf = g.erf(g.div(x, g.scalar(1.4142135f)));
        g.setOutputs(g.mul(g.mul(x, g.add(erf, g.scalar(1f))), g.scalar(0.5f)), erf);
        assertSame(g, new GeluFusion().apply(g));
    }
}
