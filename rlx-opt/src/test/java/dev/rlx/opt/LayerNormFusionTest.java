package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which written-out layer norms become one {@link Op.LayerNorm}, and which stay as they are. */
class LayerNormFusionTest {
    /** {@code (x - mean) / sqrt(mean((x - mean)^2) + eps) * gamma + beta} over the trailing {@code axes}. */
    private static Graph norm(boolean powForm, Value[] extraUse, int... axes) {
        Graph g = new Graph("ln");
        Value x = g.input("x", Shape.of(DType.F32, 2, 3, 8));
        int[] trailing = java.util.Arrays.stream(axes).map(a -> a < 0 ? a + 3 : a).toArray();
        int[] normDims = java.util.Arrays.stream(trailing).map(a -> a == 1 && trailing.length == 1 ? 1 : x.dim(a)).toArray();
        Value gamma = g.param("gamma", Shape.of(DType.F32, normDims));
        Value beta = g.param("beta", Shape.of(DType.F32, normDims));
        Value mean = g.reduceMean(x, true, axes);
        Value d = g.sub(x, mean);
        Value sq = powForm ? g.pow(d, g.scalar(2f)) : g.mul(d, d);
        Value var = g.reduceMean(sq, true, axes);
        Value y = g.add(g.mul(g.div(d, g.sqrt(g.add(var, g.scalar(1e-12f)))), gamma), beta);
        if (extraUse != null) {
            extraUse[0] = mean;
            g.setOutputs(y, mean);
        } else {
            g.setOutputs(y);
        }
        return g;
    }

    private static Graph fuse(Graph g) {
        Graph out = new DeadCodeElimination().apply(new LayerNormFusion().apply(g));
        out.verify();
        return out;
    }

    private static Op.LayerNorm only(Graph g) {
        List<Node> norms = g.nodes().stream().filter(n -> n.kind() == OpKind.LAYER_NORM).toList();
        assertEquals(1, norms.size(), "layer norms in " + g);
        assertEquals(0, g.nodes().stream().filter(n -> n.kind() == OpKind.REDUCE || n.kind() == OpKind.BINARY).count());
        return (Op.LayerNorm) norms.get(0).op();
    }

    @Test
    void powForm_lastAxis_becomesOneLayerNorm() {
        Op.LayerNorm ln = only(fuse(norm(true, null, -1)));
        assertEquals(2, ln.axis());
        assertEquals(1e-12f, ln.eps());
    }

    @Test
    void mulForm_twoTrailingAxes_normalisesFromAxisOne() {
        assertEquals(1, only(fuse(norm(false, null, 1, 2))).axis());
    }

    @Test
    void meanReadElsewhere_isLeftAlone() {
        Graph g = norm(true, new Value[1], -1);
        assertSame(g, new LayerNormFusion().apply(g));
    }

    @Test
    void leadingAxis_isNotALayerNorm() {
        Graph g = norm(true, null, 1); // axis 1 of [2, 3, 8] is not trailing (gamma [1] broadcasts)
        assertSame(g, new LayerNormFusion().apply(g));
    }
}
