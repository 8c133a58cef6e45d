package dev.rlx.llm.model;

import dev.rlx.llm.gguf.GgufFormatException;
import dev.rlx.llm.gguf.GgufMetadata;

/**
 * The hyperparameters of a llama-family decoder ({@code general.architecture} = llama, mistral, qwen2 or qwen3), read
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

    /** The {@code general.architecture} values this decoder runs, as a message lists them. */
    static final String ARCHITECTURES = "llama, mistral, qwen2, qwen3";

    /** Whether {@code arch} is one of {@link #ARCHITECTURES}. */
    static boolean supports(String arch) {
        return switch (arch) {
            case "llama", "mistral", "qwen2", "qwen3" -> true;
            default -> false;
        };
    }

    /**
     * RoPE on the two halves of each head (llama.cpp's NEOX mode) for Qwen2 and Qwen3; adjacent pairs (NORM mode)
     * for llama and mistral, whose q/k rows the GGUF converters permute to match.
     */
    public boolean neoxRope() {
        return architecture.equals("qwen2") || architecture.equals("qwen3");
    }

    /** Qwen3's RMSNorm of each query and key head ({@code attn_q_norm}, {@code attn_k_norm}), before RoPE. */
    public boolean qkNorm() {
        return architecture.equals("qwen3");
    }

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
        if (!supports(arch)) {
            throw new GgufFormatException("general.architecture '" + arch + "' is not a llama-family decoder"
                    + " (" + ARCHITECTURES + ")", -1);
        }
        String p = arch + ".";
        int dim = m.getInt(p + "embedding_length", 1, MAX_DIM);
        int heads = m.getInt(p + "attention.head_count", 1, MAX_DIM);
        int kvHeads = m.getInt(p + "attention.head_count_kv", 1, MAX_DIM, heads);
        int headDim = m.getInt(p + "attention.key_length", 1, MAX_DIM, dim / heads);
        int valueDim = m.getInt(p + "attention.value_length", 1, MAX_DIM, headDim);
        if (valueDim != headDim) {
            throw new GgufFormatException(p + "attention.value_length " + valueDim + " != key_length " + headDim
                    + ": heads of values and keys of different sizes are not supported", -1);
        }
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
