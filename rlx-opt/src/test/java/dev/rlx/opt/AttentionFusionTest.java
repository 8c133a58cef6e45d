package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which written-out multi-head attentions become one {@link Op.Attention}, and which stay as they are. */
class AttentionFusionTest {
    private static final int B = 2, S = 5, H = 3, D = 4;

    enum Scale { DIV, MUL, NONE }

    /**
     * BERT's exported attention on [B, S, H*D] projections: heads split by reshape + transpose, K transposed
     * to [B,H,D,S], scores scaled, masked, softmaxed (flattened to rank 2 when {@code flatten}), applied to V
     * and merged back. {@code kPerm} is K's transpose; {@code leak} makes the scores a second graph output.
     */
    static Graph attention(Scale scale, boolean mask, boolean flatten, int[] kPerm, boolean leak) {
        return attention(scale, mask, flatten, kPerm, leak, 2f);
    }

    static Graph attention(Scale scale, boolean mask, boolean flatten, int[] kPerm, boolean leak, float c) {
        return attention(scale, mask, flatten, kPerm, leak, c, S);
    }

    static Graph attention(Scale scale, boolean mask, boolean flatten, int[] kPerm, boolean leak, float c, int S) {
        Graph g = new Graph("bert_attention");
        Value q = g.input("q", Shape.of(DType.F32, B, S, H * D));
        Value k = g.input("k", Shape.of(DType.F32, B, S, H * D));
        Value v = g.input("v", Shape.of(DType.F32, B, S, H * D));
        Value m = g.input("mask", Shape.of(DType.F32, B, 1, 1, S));
        Value q4 = g.transpose(g.reshape(q, B, S, H, D), 0, 2, 1, 3);
        Value k4 = g.transpose(g.reshape(k, B, S, H, D), kPerm);
        Value v4 = g.transpose(g.reshape(v, B, S, H, D), 0, 2, 1, 3);
        Value scores = g.matmul(q4, k4);
        Value scaled = switch (scale) {
            case DIV -> g.div(scores, g.scalar(c));
            case MUL -> g.mul(g.scalar(1 / c), scores);
            case NONE -> scores;
        };
        Value masked = mask ? g.add(scaled, m) : scaled;
        Value p = flatten ? g.reshape(g.softmax(g.reshape(masked, B * H * S, S), 1), B, H, S, S) : g.softmax(masked, 3);
        Value y = g.reshape(g.transpose(g.matmul(p, v4), 0, 2, 1, 3), B, S, H * D);
        if (leak) {
            g.setOutputs(y, scaled);
        } else {
            g.setOutputs(y);
        }
        return g;
    }

    private static Node fusedOnly(Graph g) {
        Graph out = new DeadCodeElimination().apply(new AttentionFusion().apply(g));
        out.verify();
        List<Node> ops = out.nodes().stream().filter(n -> n.kind() != OpKind.INPUT).toList();
        assertEquals(1, ops.size(), "nodes left: " + out);
        assertEquals(OpKind.ATTENTION, ops.get(0).kind());
        return ops.get(0);
    }

    @Test
    void divScale_mask_flattenedSoftmax_becomesOneAttention() {
        Node n = fusedOnly(attention(Scale.DIV, true, true, new int[] {0, 2, 3, 1}, false));
        Op.Attention a = (Op.Attention) n.op();
        assertEquals(List.of(H, H, D), List.of(a.numHeads(), a.numKvHeads(), a.headDim()));
        assertEquals(HeadLayout.BSHD, a.layout());
        assertEquals(0.5f, a.scale());
        assertEquals(4, n.inputs().size());
        assertEquals(Shape.of(DType.F32, B, 1, 1, S), n.inputs().get(3).shape());
    }

    @Test
    void mulScale_noMask_becomesAttentionWithThreeInputs() {
        Node n = fusedOnly(attention(Scale.MUL, false, false, new int[] {0, 2, 3, 1}, false));
        assertEquals(3, n.inputs().size());
        assertEquals(0.5f, ((Op.Attention) n.op()).scale());
    }

    @Test
    void noScale_usesScaleOne() {
        assertEquals(1f, ((Op.Attention) fusedOnly(attention(Scale.NONE, true, false, new int[] {0, 2, 3, 1}, false))
                .op()).scale());
    }

    @Test
    void scoresReadElsewhere_isLeftAlone() {
        Graph g = attention(Scale.DIV, true, true, new int[] {0, 2, 3, 1}, true);
        assertSame(g, new AttentionFusion().apply(g));
    }

    @Test
    void negativeScale_isLeftAlone() {
        Graph g = attention(Scale.DIV, true, false, new int[] {0, 2, 3, 1}, false, -2f);
        assertSame(g, new AttentionFusion().apply(g));
    }

    @Test
    void keysInQueryLayout_isLeftAlone() {
        // S == D so that q4 @ k4 with K as [B,H,S,D] is a valid matmul, but not q k^T
        Graph g = attention(Scale.DIV, true, false, new int[] {0, 2, 1, 3}, false, 2f, D);
        assertSame(g, new AttentionFusion().apply(g));
    }
}
