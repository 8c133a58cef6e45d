package dev.rlx.llm.model;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * The decoder as RLX graphs over {@code T} token rows of any number of sequences (rows are independent outside
 * attention, which runs between the graphs over the paged KV cache). The cut is at attention, so the model is
 * {@code layers + 1} graphs:
 * <ul>
 *   <li>stage 0: {@code x} (embedded tokens) -> q, k, v of layer 0;
 *   <li>stage l (1 .. layers-1): {@code x}, {@code att} (layer l-1's attention) -> the rest of layer l-1
 *       (output projection, residual, RMSNorm, SwiGLU, residual) as the new {@code x}, then q, k, v of layer l;
 *   <li>head: {@code x}, {@code att} -> the rest of the last layer, the rows {@code last} picks, final norm and
 *       LM head: logits {@code [S, vocab]}.
 * </ul>
 * q/k/v are RMSNorm, projection (+ bias for Qwen2) and, for q and k, Qwen3's RMSNorm of each head, then RoPE
 * with the {@code cos}/{@code sin} rows of each token's position ({@code [T, headDim/2]} inputs).
 */
final class DecoderGraphs {
    private final LlamaConfig c;
    private final LlamaWeights w;
    private final boolean interleaved;

    DecoderGraphs(LlamaConfig c, LlamaWeights w) {
        this.c = c;
        this.w = w;
        this.interleaved = !c.neoxRope();
    }

    /** Stage {@code layer} for {@code tokens} rows: outputs (x unless layer 0), q, k, v. */
    Graph stage(int layer, int tokens) {
        Graph g = new Graph("llama_stage" + layer + "_t" + tokens);
        Value x = g.input("x", Shape.of(DType.F32, tokens, c.dim()));
        List<Value> outs = new ArrayList<>();
        if (layer > 0) {
            x = finishLayer(g, x, g.input("att", Shape.of(DType.F32, tokens, c.qDim())), layer - 1);
            outs.add(x);
        }
        Value cos = g.input("cos", Shape.of(DType.F32, tokens, c.headDim() / 2));
        Value sin = g.input("sin", Shape.of(DType.F32, tokens, c.headDim() / 2));
        String b = "blk." + layer + ".";
        Value h = g.rmsNorm(x, w.param(g, b + "attn_norm.weight"), c.rmsEps());
        outs.add(rope(g, headNorm(g, project(g, h, b + "attn_q"), b + "attn_q_norm.weight", c.heads(), tokens),
                c.heads(), cos, sin, tokens));
        outs.add(rope(g, headNorm(g, project(g, h, b + "attn_k"), b + "attn_k_norm.weight", c.kvHeads(), tokens),
                c.kvHeads(), cos, sin, tokens));
        outs.add(project(g, h, b + "attn_v"));
        g.setOutputs(outs);
        return g;
    }

    /** The head for {@code tokens} rows and {@code seqs} logits rows. */
    Graph head(int tokens, int seqs) {
        Graph g = new Graph("llama_head_t" + tokens + "_s" + seqs);
        Value x = g.input("x", Shape.of(DType.F32, tokens, c.dim()));
        Value att = g.input("att", Shape.of(DType.F32, tokens, c.qDim()));
        Value last = g.input("last", Shape.of(DType.I32, seqs));
        Value rows = g.gather(finishLayer(g, x, att, c.layers() - 1), last, 0);
        Value h = g.rmsNorm(rows, w.param(g, "output_norm.weight"), c.rmsEps());
        g.setOutputs(w.linear(g, h, w.outputName()));
        return g;
    }

    private Value project(Graph g, Value h, String base) {
        return w.qkvBias() ? w.linear(g, h, base + ".weight", base + ".bias") : w.linear(g, h, base + ".weight");
    }

    /** Qwen3: each head of {@code x} ({@code [T, heads * headDim]}) RMS-normed by {@code weight}; else x. */
    private Value headNorm(Graph g, Value x, String weight, int heads, int tokens) {
        if (!c.qkNorm()) {
            return x;
        }
        Value perHead = g.reshape(x, tokens * heads, c.headDim());
        return g.reshape(g.rmsNorm(perHead, w.param(g, weight), c.rmsEps()), tokens, heads * c.headDim());
    }

    private Value rope(Graph g, Value x, int heads, Value cos, Value sin, int tokens) {
        Value r = g.rope(g.reshape(x, 1, tokens, heads * c.headDim()), cos, sin,
                new Op.Rope(c.headDim(), c.headDim(), interleaved, HeadLayout.BSHD));
        return g.reshape(r, tokens, heads * c.headDim());
    }

    /** Output projection and residual, then the SwiGLU feed-forward block and residual, of {@code layer}. */
    private Value finishLayer(Graph g, Value x, Value att, int layer) {
        String b = "blk." + layer + ".";
        Value x1 = g.add(x, w.linear(g, att, b + "attn_output.weight"));
        Value h = g.rmsNorm(x1, w.param(g, b + "ffn_norm.weight"), c.rmsEps());
        Value gate = g.silu(w.linear(g, h, b + "ffn_gate.weight"));
        Value up = w.linear(g, h, b + "ffn_up.weight");
        return g.add(x1, w.linear(g, g.mul(gate, up), b + "ffn_down.weight"));
    }
}
