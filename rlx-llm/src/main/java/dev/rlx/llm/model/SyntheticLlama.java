package dev.rlx.llm.model;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufWriter;
import dev.rlx.llm.tokenizer.SyntheticVocab;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Writes a llama-family GGUF with random weights in llama.cpp's tensor names and layout, for tests and
 * benchmarks (no trained model can be downloaded here). Weights are Gaussian with a standard deviation of
 * {@code 1/sqrt(fan_in)} and norms near 1, so activations stay in range through many layers and greedy decoding
 * is not decided by ties. The same spec and seed write the same bytes.
 *
 * @param architecture "llama", "qwen2" (q/k/v biases) or "qwen3" (RMSNorm of each query and key head)
 * @param vocab "spm", or the {@code tokenizer.ggml.pre} of a byte-level BPE ("llama-bpe", "qwen2", "smollm",
 *     "gpt-2", "default"...): the tokenizer generated into the file
 * @param vocabSize tokens of a "spm" vocabulary, merges of a BPE one (the file's vocabulary is what results)
 * @param type how the 2-D weight matrices are stored; norms and biases stay F32, the embedding too unless
 *     {@code type} is F16, BF16 or F32
 * @param headDim the size of a head, or 0 for {@code dim / heads}; any other size is written as
 *     {@code attention.key_length} (Qwen3's heads are 128 wide whatever the width), so the attention projects
 *     to {@code heads * headDim}
 */
public record SyntheticLlama(String architecture, String vocab, int vocabSize, int dim, int layers, int heads,
                             int kvHeads, int ffnDim, int contextLength, GgmlType type, boolean tiedEmbeddings,
                             float ropeScalingFactor, long seed, int headDim) {
    public SyntheticLlama {
        if (dim <= 0 || layers <= 0 || heads <= 0 || kvHeads <= 0 || ffnDim <= 0 || contextLength <= 0
                || headDim < 0 || (headDim == 0 && dim % heads != 0) || heads % kvHeads != 0
                || (headDim == 0 ? dim / heads : headDim) % 2 != 0) {
            throw new IllegalArgumentException("dim " + dim + ", " + layers + " layers, " + heads + " heads of "
                    + (headDim == 0 ? "dim / heads" : headDim) + " over " + kvHeads + " KV heads, ffn " + ffnDim
                    + ": sizes must be positive, the head size even (heads must divide dim when it is not given)"
                    + " and KV heads must divide heads");
        }
        if (!architecture.equals("llama") && !architecture.equals("qwen2") && !architecture.equals("qwen3")) {
            throw new IllegalArgumentException("architecture " + architecture + " (llama, qwen2, qwen3)");
        }
    }

    /** Heads of {@code dim / heads}. */
    public SyntheticLlama(String architecture, String vocab, int vocabSize, int dim, int layers, int heads,
                          int kvHeads, int ffnDim, int contextLength, GgmlType type, boolean tiedEmbeddings,
                          float ropeScalingFactor, long seed) {
        this(architecture, vocab, vocabSize, dim, layers, heads, kvHeads, ffnDim, contextLength, type,
                tiedEmbeddings, ropeScalingFactor, seed, 0);
    }

    /** The size of one head. */
    public int headSize() {
        return headDim == 0 ? dim / heads : headDim;
    }

    /** A small GQA model for tests (about 0.5M parameters). */
    public static SyntheticLlama tiny(GgmlType type) {
        return new SyntheticLlama("llama", "spm", 600, 128, 2, 4, 2, 352, 512, type, false, 0, 42);
    }

    public long write(Path path) throws IOException {
        return writer().write(path);
    }

    public GgufWriter writer() {
        GgufWriter w = new GgufWriter();
        String p = architecture + ".";
        w.putString("general.architecture", architecture);
        w.putString("general.name", "rlx-synthetic-" + architecture);
        w.putU32(p + "context_length", contextLength);
        w.putU32(p + "embedding_length", dim);
        w.putU32(p + "block_count", layers);
        w.putU32(p + "feed_forward_length", ffnDim);
        w.putU32(p + "attention.head_count", heads);
        w.putU32(p + "attention.head_count_kv", kvHeads);
        int hd = headSize();
        if (headDim != 0) {
            w.putU32(p + "attention.key_length", hd);
            w.putU32(p + "attention.value_length", hd);
        }
        w.putU32(p + "rope.dimension_count", hd);
        w.putF32(p + "rope.freq_base", architecture.startsWith("qwen") ? 1_000_000f : 10_000f);
        w.putF32(p + "attention.layer_norm_rms_epsilon", 1e-5f);
        if (ropeScalingFactor > 0) {
            w.putString(p + "rope.scaling.type", "llama3");
            w.putF32(p + "rope.scaling.factor", ropeScalingFactor);
            w.putF32(p + "rope.scaling.low_freq_factor", 1f);
            w.putF32(p + "rope.scaling.high_freq_factor", 4f);
            w.putU32(p + "rope.scaling.original_context_length", 8192);
        }
        w.putU32("general.file_type", fileType(type));
        switch (vocab) {
            case "spm" -> SyntheticVocab.writeSpm(w, SyntheticVocab.DEFAULT_CORPUS, vocabSize);
            // any other name is a byte-level BPE split by that tokenizer.ggml.pre family (llama-bpe, qwen2, smollm...)
            default -> SyntheticVocab.writeBpe(w, SyntheticVocab.DEFAULT_CORPUS, vocabSize, vocab);
        }
        int nVocab = w.arrayLength("tokenizer.ggml.tokens");
        int qDim = heads * hd;
        int kvDim = kvHeads * hd;
        GgmlType embType = type == GgmlType.F16 || type == GgmlType.BF16 ? type : GgmlType.F32;
        SplittableRandom seeds = new SplittableRandom(seed);
        gauss(w, "token_embd.weight", embType, new long[] {dim, nVocab}, 1.0, seeds.split());
        for (int l = 0; l < layers; l++) {
            String b = "blk." + l + ".";
            norm(w, b + "attn_norm.weight", dim, seeds.split());
            gauss(w, b + "attn_q.weight", type, new long[] {dim, qDim}, 1 / Math.sqrt(dim), seeds.split());
            gauss(w, b + "attn_k.weight", type, new long[] {dim, kvDim}, 1 / Math.sqrt(dim), seeds.split());
            gauss(w, b + "attn_v.weight", type, new long[] {dim, kvDim}, 1 / Math.sqrt(dim), seeds.split());
            if (architecture.equals("qwen2")) {
                gauss(w, b + "attn_q.bias", GgmlType.F32, new long[] {qDim}, 0.1, seeds.split());
                gauss(w, b + "attn_k.bias", GgmlType.F32, new long[] {kvDim}, 0.1, seeds.split());
                gauss(w, b + "attn_v.bias", GgmlType.F32, new long[] {kvDim}, 0.1, seeds.split());
            }
            if (architecture.equals("qwen3")) {
                norm(w, b + "attn_q_norm.weight", hd, seeds.split());
                norm(w, b + "attn_k_norm.weight", hd, seeds.split());
            }
            gauss(w, b + "attn_output.weight", type, new long[] {qDim, dim}, 1 / Math.sqrt(qDim), seeds.split());
            norm(w, b + "ffn_norm.weight", dim, seeds.split());
            gauss(w, b + "ffn_gate.weight", type, new long[] {dim, ffnDim}, 1 / Math.sqrt(dim), seeds.split());
            gauss(w, b + "ffn_up.weight", type, new long[] {dim, ffnDim}, 1 / Math.sqrt(dim), seeds.split());
            gauss(w, b + "ffn_down.weight", type, new long[] {ffnDim, dim}, 1 / Math.sqrt(ffnDim), seeds.split());
        }
        norm(w, "output_norm.weight", dim, seeds.split());
        if (!tiedEmbeddings) {
            gauss(w, "output.weight", type, new long[] {dim, nVocab}, 1 / Math.sqrt(dim), seeds.split());
        }
        return w;
    }

    /** llama.cpp's {@code llama_ftype} for a file whose matrices are {@code t}. */
    private static int fileType(GgmlType t) {
        return switch (t) {
            case F32 -> 0;
            case F16 -> 1;
            case Q4_0 -> 2;
            case Q4_1 -> 3;
            case Q8_0 -> 7;
            case Q5_0 -> 8;
            case Q5_1 -> 9;
            case BF16 -> 32;
            default -> throw new IllegalArgumentException(t + " weights cannot be generated (K-quants are read only)");
        };
    }

    private static void norm(GgufWriter w, String name, int n, SplittableRandom r) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (1 + 0.1 * (r.nextDouble() * 2 - 1));
        }
        w.addTensor(name, GgmlType.F32, new long[] {n}, x);
    }

    /** Gaussian rows generated and encoded row by row into the file, so large models need no heap. */
    private static void gauss(GgufWriter w, String name, GgmlType t, long[] dims, double std, SplittableRandom r) {
        int row = (int) dims[0];
        long rows = dims.length > 1 ? dims[1] : 1;
        long rowBytes = t.bytesFor(row);
        w.addTensor(name, t, dims, (MemorySegment seg) -> {
            float[] x = new float[row];
            for (long j = 0; j < rows; j++) {
                for (int i = 0; i < row; i++) {
                    x[i] = (float) (gaussian(r) * std);
                }
                t.encode(x, 0, seg, j * rowBytes, row);
            }
        });
    }

    /** Box-Muller on SplittableRandom (nextGaussian's algorithm is not specified across JDKs). */
    private static double gaussian(SplittableRandom r) {
        double u = 1 - r.nextDouble();
        double v = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
