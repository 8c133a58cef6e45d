package dev.rlx.llm.model;

import dev.rlx.llm.gguf.GgufFormatException;
import dev.rlx.llm.gguf.GgufMetadata;

/**
 * The hyperparameters of a llama-family decoder ({@code general.architecture} = llama, mistral or qwen2), read
 * from the architecture-prefixed GGUF keys with llama.cpp's defaults, and checked for consistency (heads divide
 * the width, KV heads divide the heads).
 *
 * @param ropeScalingFactor Llama 3.1's {@code rope.scaling.factor}, or 0 when RoPE is not rescaled
 */
public record LlamaConfig(String architecture, int vocabSize, int dim, int layers, int heads, int kvHeads,
                          int headDim, int ffnDim, int contextLength, float rmsEps, float ropeTheta,
                          float ropeScalingFactor, float ropeLowFreqFactor, float ropeHighFreqFactor,
                          int ropeOriginalContext, boolean qkvBias) {
    /** Upper bound on any one dimension read from a file, far above real models. */
    static final int MAX_DIM = 1 << 20;

    public LlamaConfig {
        if (dim <= 0 || heads <= 0 || kvHeads <= 0 || layers <= 0 || vocabSize <= 0 || ffnDim <= 0 || headDim <= 0) {
            throw new GgufFormatException(architecture + ": dimensions must be positive (dim " + dim + ", heads "
                    + heads + ", kv heads " + kvHeads + ", layers " + layers + ", vocab " + vocabSize + ", ffn "
                    + ffnDim + ")", -1);
        }
        if (heads % kvHeads != 0) {
            throw new GgufFormatException(architecture + ": " + heads + " heads are not a multiple of " + kvHeads
                    + " KV heads", -1);
        }
        if (headDim % 2 != 0) {
            throw new GgufFormatException(architecture + ": head dimension " + headDim + " is odd (RoPE rotates pairs)",
                    -1);
        }
    }

    public int kvDim() {
        return kvHeads * headDim;
    }

    public int qDim() {
        return heads * headDim;
    }

    public static LlamaConfig fromGguf(GgufMetadata m, int vocabSize) {
        String arch = m.getString("general.architecture");
        if (!arch.equals("llama") && !arch.equals("mistral") && !arch.equals("qwen2")) {
            throw new GgufFormatException("general.architecture '" + arch + "' is not a llama-family decoder"
                    + " (llama, mistral, qwen2)", -1);
        }
        String p = arch + ".";
        int dim = m.getInt(p + "embedding_length", 1, MAX_DIM);
        int heads = m.getInt(p + "attention.head_count", 1, MAX_DIM);
        int kvHeads = m.getInt(p + "attention.head_count_kv", 1, MAX_DIM, heads);
        int headDim = m.getInt(p + "attention.key_length", 1, MAX_DIM, dim / heads);
        int rot = m.getInt(p + "rope.dimension_count", 1, MAX_DIM, headDim);
        if (rot != headDim) {
            throw new GgufFormatException(p + "rope.dimension_count " + rot + " != head dimension " + headDim
                    + ": partial rotary embeddings are not supported", -1);
        }
        String scaling = m.getString(p + "rope.scaling.type", "none");
        float factor = 0;
        if (!scaling.equals("none")) {
            factor = (float) m.getDouble(p + "rope.scaling.factor", 0);
        }
        return new LlamaConfig(arch, m.getInt(p + "vocab_size", 1, Integer.MAX_VALUE, vocabSize), dim,
                m.getInt(p + "block_count", 1, 4096), heads, kvHeads, headDim,
                m.getInt(p + "feed_forward_length", 1, MAX_DIM * 4), m.getInt(p + "context_length", 1,
                Integer.MAX_VALUE, 4096), (float) m.getDouble(p + "attention.layer_norm_rms_epsilon", 1e-5),
                (float) m.getDouble(p + "rope.freq_base", 10000.0), factor,
                (float) m.getDouble(p + "rope.scaling.low_freq_factor", 1.0),
                (float) m.getDouble(p + "rope.scaling.high_freq_factor", 4.0),
                m.getInt(p + "rope.scaling.original_context_length", 1, Integer.MAX_VALUE, 8192),
                arch.equals("qwen2"));
    }
}
