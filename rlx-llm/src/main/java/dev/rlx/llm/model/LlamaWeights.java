package dev.rlx.llm.model;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.gguf.GgufTensor;
import dev.rlx.llm.model.LlamaModelException.Reason;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import dev.rlx.runtime.spi.HostRuntime;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A llama-family model's tensors, checked against its {@link LlamaConfig} and bound by reference into one
 * {@link WeightSet} that every decoder graph shares: the set's buffers are slices of the file's mapping, so the
 * weights take the file's bytes and no more (quantised matrices stay quantised, F16 stays F16). The graphs name
 * their params by the tensors' GGUF names.
 */
final class LlamaWeights implements AutoCloseable {
    private final LlamaConfig config;
    private final WeightSet set;
    private final Map<String, GgmlType> types = new HashMap<>();
    private final String outputName;
    private final boolean qkvBias;

    LlamaWeights(GgufFile file, LlamaConfig c, Session session) {
        this.config = c;
        this.set = session.newWeightSet("llama " + file.source());
        try {
            int vocab = c.vocabSize();
            matrix(file, "token_embd.weight", c.dim(), vocab, false);
            vector(file, "output_norm.weight", c.dim());
            outputName = file.find("output.weight") != null ? "output.weight" : "token_embd.weight"; // tied
            matrix(file, outputName, c.dim(), vocab, true);
            qkvBias = c.qkvBias() || file.find("blk.0.attn_q.bias") != null;
            for (int l = 0; l < c.layers(); l++) {
                String b = "blk." + l + ".";
                vector(file, b + "attn_norm.weight", c.dim());
                matrix(file, b + "attn_q.weight", c.dim(), c.qDim(), true);
                matrix(file, b + "attn_k.weight", c.dim(), c.kvDim(), true);
                matrix(file, b + "attn_v.weight", c.dim(), c.kvDim(), true);
                if (qkvBias) {
                    vector(file, b + "attn_q.bias", c.qDim());
                    vector(file, b + "attn_k.bias", c.kvDim());
                    vector(file, b + "attn_v.bias", c.kvDim());
                }
                if (c.qkNorm()) {
                    vector(file, b + "attn_q_norm.weight", c.headDim());
                    vector(file, b + "attn_k_norm.weight", c.headDim());
                }
                matrix(file, b + "attn_output.weight", c.qDim(), c.dim(), true);
                vector(file, b + "ffn_norm.weight", c.dim());
                matrix(file, b + "ffn_gate.weight", c.dim(), c.ffnDim(), true);
                matrix(file, b + "ffn_up.weight", c.dim(), c.ffnDim(), true);
                matrix(file, b + "ffn_down.weight", c.ffnDim(), c.dim(), true);
            }
        } catch (RuntimeException e) {
            set.close();
            throw e;
        }
    }

    WeightSet set() {
        return set;
    }

    boolean qkvBias() {
        return qkvBias;
    }

    /** The LM head's tensor: {@code output.weight}, or the token embeddings when they are tied. */
    String outputName() {
        return outputName;
    }

    /** The file's bytes the set holds. */
    long byteSize() {
        return set.byteSize();
    }

    private static GgufTensor require(GgufFile file, String name) {
        GgufTensor t = file.find(name);
        if (t == null) {
            throw new LlamaModelException(Reason.MISSING_TENSOR, "tensor '" + name + "' is missing from "
                    + file.source());
        }
        return t;
    }

    private void vector(GgufFile file, String name, int n) {
        GgufTensor t = require(file, name);
        if (t.rank() != 1 || t.dim(0) != n) {
            throw mismatch(t, "[" + n + "]");
        }
        if (t.type() != GgmlType.F32) {
            throw new LlamaModelException(Reason.UNSUPPORTED_TYPE, "tensor '" + name + "' is " + t.type()
                    + "; norms and biases must be F32");
        }
        bind(t, Shape.of(DType.F32, n));
    }

    /**
     * Checks a {@code [rows, cols]} matrix (ggml dims {@code [cols, rows]}: row j holds output j's weights) and,
     * when graphs multiply by it, binds it in the layout {@link #linear} reads.
     */
    private void matrix(GgufFile file, String name, int cols, int rows, boolean used) {
        GgufTensor t = require(file, name);
        if (t.rank() != 2 || t.dim(0) != cols || t.dim(1) != rows) {
            throw mismatch(t, "[" + cols + ", " + rows + "] (ggml order)");
        }
        if (!used || set.contains(name)) {
            return; // the embedding table is read on the host (or already bound as the tied LM head)
        }
        // every matrix stays in the file's bytes: u8 rows of ggml blocks, which QuantMatMul reads in place
        long rowBytes = t.type().weightFormat().rowBytes(cols);
        if (rowBytes < 0 || rowBytes > Integer.MAX_VALUE) {
            throw mismatch(t, "rows of whole " + t.type() + " blocks (" + t.type().blockElems() + " values each)");
        }
        bind(t, Shape.of(DType.U8, rows, (int) rowBytes));
    }

    private void bind(GgufTensor t, Shape shape) {
        set.bind(t.name(), shape, HostRuntime.wrap(t.data()));
        types.put(t.name(), t.type());
    }

    private LlamaModelException mismatch(GgufTensor t, String want) {
        return new LlamaModelException(Reason.SHAPE_MISMATCH, String.format(Locale.ROOT,
                "tensor '%s' is %s but %s (dim %d, %d heads, %d kv heads, head size %d, ffn %d, vocab %d) needs %s",
                t.name(), java.util.Arrays.toString(t.dims()), config.architecture(), config.dim(), config.heads(),
                config.kvHeads(), config.headDim(), config.ffnDim(), config.vocabSize(), want));
    }

    /** A bound vector or matrix as a param of {@code g}. */
    Value param(Graph g, String name) {
        return g.param(name, set.shape(name));
    }

    /**
     * {@code x [.., K] . W^T} for the bound matrix {@code name} ({@code [N, K]}): {@code [.., N]} in f32, the weights
     * read in their stored format (F32, F16, BF16 or a ggml quantisation) by {@code Op.QuantMatMul}.
     */
    Value linear(Graph g, Value x, String name) {
        return g.quantMatMul(x, param(g, name), types.get(name).weightFormat());
    }

    /** {@link #linear} plus the bias vector {@code bias}. */
    Value linear(Graph g, Value x, String name, String bias) {
        return g.add(linear(g, x, name), param(g, bias));
    }

    @Override
    public void close() {
        set.close();
    }
}
