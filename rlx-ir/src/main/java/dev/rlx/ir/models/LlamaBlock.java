package dev.rlx.ir.models;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One Llama-style decoder block, as a prefill from position 0: RMS norm, grouped-query causal attention with
 * rotate-half RoPE, a residual, RMS norm, a SwiGLU feed-forward and a second residual.
 *
 * <pre>
 * h = rms_norm(x) ; q, k, v = h Wq, h Wk, h Wv ; q, k = rope(q), rope(k)
 * x = x + attention(q, k, v) Wo
 * x = x + (silu(rms_norm(x) Wgate) * (rms_norm(x) Wup)) Wdown
 * </pre>
 *
 * Input {@code "x"} is {@code [batch, seq, dim]}; params are named {@code attn_norm, wq, wk, wv, wo, ffn_norm,
 * w_gate, w_up, w_down}; the RoPE tables for positions {@code 0..seq-1} are constants.
 */
public record LlamaBlock(int batch, int seq, int dim, int heads, int kvHeads, int headDim, int ffn, float eps,
                         double ropeTheta) {

    /** The block {@code rlx demo} runs: d=512, 8 query heads sharing 2 kv heads of 64, ffn 1376, seq 32. */
    public static LlamaBlock demo() {
        return new LlamaBlock(1, 32, 512, 8, 2, 64, 1376, 1e-5f, 10_000);
    }

    public Graph build() {
        Graph g = new Graph("llama_block");
        Value x = g.input("x", Shape.of(DType.F32, batch, seq, dim));
        Value cos = g.constant(ropeTable(true));
        Value sin = g.constant(ropeTable(false));
        Op.Rope rope = new Op.Rope(headDim, headDim, false, dev.rlx.ir.HeadLayout.BSHD);

        Value h = g.rmsNorm(x, param(g, "attn_norm", dim), eps);
        Value q = g.rope(g.matmul(h, param(g, "wq", dim, heads * headDim)), cos, sin, rope);
        Value k = g.rope(g.matmul(h, param(g, "wk", dim, kvHeads * headDim)), cos, sin, rope);
        Value v = g.matmul(h, param(g, "wv", dim, kvHeads * headDim));
        Value a = g.attention(q, k, v, Op.Attention.of(heads, kvHeads, headDim).causal());
        Value x1 = g.add(x, g.matmul(a, param(g, "wo", heads * headDim, dim)));

        Value h2 = g.rmsNorm(x1, param(g, "ffn_norm", dim), eps);
        Value gate = g.silu(g.matmul(h2, param(g, "w_gate", dim, ffn)));
        Value up = g.matmul(h2, param(g, "w_up", dim, ffn));
        Value out = g.add(x1, g.matmul(g.mul(gate, up), param(g, "w_down", ffn, dim)));
        g.setOutputs(out);
        return g;
    }

    private static Value param(Graph g, String name, int... dims) {
        return g.param(name, Shape.of(DType.F32, dims));
    }

    /** {@code cos} or {@code sin} of {@code s * theta^(-2i/headDim)} for s &lt; seq, i &lt; headDim/2. */
    public Tensor ropeTable(boolean cosine) {
        int half = headDim / 2;
        float[] t = new float[seq * half];
        for (int s = 0; s < seq; s++) {
            for (int i = 0; i < half; i++) {
                double angle = s * Math.pow(ropeTheta, -2.0 * i / headDim);
                t[s * half + i] = (float) (cosine ? Math.cos(angle) : Math.sin(angle));
            }
        }
        return Tensor.of(t, seq, half);
    }

    /**
     * Deterministic weights for a seed: matrices uniform in {@code ±1/sqrt(fanIn)}, norm gains near 1.
     * Keyed by param name, in declaration order.
     */
    public Map<String, Tensor> randomWeights(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Map<String, Tensor> w = new LinkedHashMap<>();
        w.put("attn_norm", gains(r, dim));
        w.put("wq", matrix(r, dim, heads * headDim));
        w.put("wk", matrix(r, dim, kvHeads * headDim));
        w.put("wv", matrix(r, dim, kvHeads * headDim));
        w.put("wo", matrix(r, heads * headDim, dim));
        w.put("ffn_norm", gains(r, dim));
        w.put("w_gate", matrix(r, dim, ffn));
        w.put("w_up", matrix(r, dim, ffn));
        w.put("w_down", matrix(r, ffn, dim));
        return w;
    }

    /** A deterministic input {@code [batch, seq, dim]}, uniform in [-1, 1). */
    public Tensor randomInput(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] x = new float[batch * seq * dim];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (2 * r.nextDouble() - 1);
        }
        return Tensor.of(x, batch, seq, dim);
    }

    private static Tensor matrix(SplittableRandom r, int rows, int cols) {
        float[] m = new float[rows * cols];
        double bound = 1 / Math.sqrt(rows);
        for (int i = 0; i < m.length; i++) {
            m[i] = (float) ((2 * r.nextDouble() - 1) * bound);
        }
        return Tensor.of(m, rows, cols);
    }

    private static Tensor gains(SplittableRandom r, int n) {
        float[] g = new float[n];
        for (int i = 0; i < n; i++) {
            g[i] = (float) (0.8 + 0.4 * r.nextDouble());
        }
        return Tensor.of(g, n);
    }
}
