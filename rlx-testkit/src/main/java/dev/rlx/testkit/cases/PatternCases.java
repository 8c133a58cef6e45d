package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.f32;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Value;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Graphs written the way exporters write them, which a backend's optimiser rewrites (element-wise chains, matmul
 * epilogues, residual + norm, written-out layer norm, erf GELU, BERT attention, neutral ops, constants, repeats):
 * whatever the backend fuses, the result must stay what the ops as written compute.
 */
final class PatternCases {
    private PatternCases() {}

    /** Fusion keeps intermediates unrounded or rounds them in another order: a few f32 ulps of values of order 1-10. */
    static final Tolerance FUSED = Tolerance.of(1e-5, 1e-5, "fused ops round intermediates differently");

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        c.add(pattern("elementwiseChain", g -> {
            Value a = g.input("a", f32(6, 129));
            Value b = g.input("b", f32(129));
            Value t = g.div(g.add(g.mul(a, b), g.input("c", f32(6, 1))), g.scalar(3f));
            g.setOutputs(g.tanh(g.sub(t, a)));
        }));
        c.add(pattern("matmulBiasGeluResidual", g -> {
            Value x = g.input("x", f32(2, 7, 24));
            Value y = g.gelu(g.add(g.matmul(x, g.param("w", f32(24, 40))), g.param("b", f32(40))));
            g.setOutputs(g.add(y, g.input("r", f32(2, 7, 40))));
        }));
        c.add(pattern("residualRmsNorm", g -> {
            Value s = g.add(g.input("x", f32(5, 96)), g.input("r", f32(5, 96)));
            g.setOutputs(s, g.rmsNorm(s, g.param("gamma", f32(96)), 1e-6f));
        }));
        c.add(pattern("writtenOutLayerNorm", g -> {
            Value x = g.input("x", f32(4, 3, 50));
            Value d = g.sub(x, g.reduceMean(x, true, -1));
            Value v = g.reduceMean(g.mul(d, d), true, -1);
            Value y = g.div(d, g.sqrt(g.add(v, g.scalar(1e-5f))));
            g.setOutputs(g.add(g.mul(y, g.param("gamma", f32(50))), g.param("beta", f32(50))));
        }));
        c.add(pattern("erfGelu", g -> {
            Value x = g.input("x", f32(3, 77));
            Value e = g.erf(g.div(x, g.scalar((float) Math.sqrt(2))));
            g.setOutputs(g.mul(g.mul(x, g.add(e, g.scalar(1f))), g.scalar(0.5f)));
        }));
        c.add(pattern("bertAttentionWithMask", PatternCases::bertAttention));
        c.add(pattern("neutralOpsConstantsAndRepeats", g -> {
            Value x = g.input("x", f32(6, 16));
            Value scale = g.sqrt(g.add(g.scalar(3f), g.scalar(1f)));             // folds to 2
            Value h1 = g.exp(g.mul(x, g.reciprocal(scale)));
            Value h2 = g.exp(g.mul(x, g.reciprocal(scale)));                      // the same again
            Value y = g.reshape(g.reshape(g.add(g.mul(g.add(h1, h2), g.scalar(1f)), g.scalar(0f)), 96), 6, 16);
            g.exp(y);                                                             // dead
            g.setOutputs(g.sub(y, g.scalar(0f)));
        }));
        // compare-and-where as exporters write activations: fused into mask steps where a backend has them
        c.add(pattern("whereLeakyReluElu", g -> {
            Value x = g.input("x", f32(3, 37, 41));
            Value leaky = g.where(g.lt(x, g.scalar(0f)), g.mul(x, g.scalar(0.2f)), x);
            Value elu = g.where(g.gt(leaky, g.scalar(0f)), leaky, g.mul(g.scalar(1.5f), g.sub(g.exp(leaky), g.scalar(1f))));
            g.setOutputs(g.add(elu, g.input("b", f32(41))));
        }));
        c.add(pattern("whereShrinkNestedBroadcast", g -> {
            Value x = g.input("x", f32(5, 67, 31));
            Value col = g.input("col", f32(5, 67, 1));
            Value inner = g.where(g.gt(x, col), g.sub(x, g.scalar(0.25f)), g.scalar(0f));
            g.setOutputs(g.where(g.le(x, g.neg(col)), g.add(x, g.scalar(0.25f)), inner));
        }));
        return new OpFamily("patterns", c);
    }

    private static OpCase pattern(String name, Consumer<Graph> body) {
        return OpCase.named("pattern_" + name + "_f32").graph(body).tolerance(DType.F32, FUSED).build();
    }

    /** BERT's export: heads split by reshape and transpose, {@code q k^T / sqrt(d) + mask}, softmax, {@code p v}. */
    private static void bertAttention(Graph g) {
        int b = 2;
        int s = 9;
        int h = 3;
        int d = 8;
        Value q = g.transpose(g.reshape(g.input("q", f32(b, s, h * d)), b, s, h, d), 0, 2, 1, 3);
        Value k = g.transpose(g.reshape(g.input("k", f32(b, s, h * d)), b, s, h, d), 0, 2, 3, 1);
        Value v = g.transpose(g.reshape(g.input("v", f32(b, s, h * d)), b, s, h, d), 0, 2, 1, 3);
        Value scores = g.add(g.div(g.matmul(q, k), g.scalar((float) Math.sqrt(d))), g.input("mask", f32(b, 1, 1, s)));
        Value p = g.softmax(scores, -1);
        g.setOutputs(g.reshape(g.transpose(g.matmul(p, v), 0, 2, 1, 3), b, s, h * d));
    }
}
