package dev.rlx.llm.model;

import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.gguf.GgufTensor;

/**
 * A float64 forward pass of a llama-family decoder over a GGUF file's (dequantised) weights, written from the
 * model's definition to check RLX and llama.cpp against: RMSNorm, RoPE (adjacent pairs for llama/mistral,
 * halves for qwen2 and qwen3, as llama.cpp's NORM and NEOX modes), causal GQA attention, SwiGLU, Qwen2's q/k/v
 * biases, Qwen3's RMSNorm of each query and key head before RoPE, tied embeddings. One sequence, one token at a time, with a float64 KV cache.
 */
public final class ReferenceLlama {
    private final LlamaConfig c;
    private final double[][] embed;
    private final double[][] output;
    private final double[] outNorm;
    private final Layer[] layers;
    private final double[][][] keys;
    private final double[][][] values;
    private final double[] freq; // (headDim/2) RoPE angle per position of each pair
    private int pos;

    private record Layer(double[] attnNorm, double[][] wq, double[][] wk, double[][] wv, double[] bq, double[] bk,
                         double[] bv, double[] qNorm, double[] kNorm, double[][] wo, double[] ffnNorm,
                         double[][] gate, double[][] up, double[][] down) {}

    public ReferenceLlama(GgufFile f, int vocabSize, int maxTokens) {
        c = LlamaConfig.fromGguf(f.metadata(), vocabSize);
        embed = matrix(f.tensor("token_embd.weight"));
        GgufTensor out = f.find("output.weight");
        output = out == null ? embed : matrix(out);
        outNorm = vector(f.tensor("output_norm.weight"));
        layers = new Layer[c.layers()];
        for (int l = 0; l < c.layers(); l++) {
            String b = "blk." + l + ".";
            layers[l] = new Layer(vector(f.tensor(b + "attn_norm.weight")), matrix(f.tensor(b + "attn_q.weight")),
                    matrix(f.tensor(b + "attn_k.weight")), matrix(f.tensor(b + "attn_v.weight")),
                    optional(f, b + "attn_q.bias"), optional(f, b + "attn_k.bias"), optional(f, b + "attn_v.bias"),
                    optional(f, b + "attn_q_norm.weight"), optional(f, b + "attn_k_norm.weight"), matrix(f.tensor(b + "attn_output.weight")), vector(f.tensor(b + "ffn_norm.weight")),
                    matrix(f.tensor(b + "ffn_gate.weight")), matrix(f.tensor(b + "ffn_up.weight")),
                    matrix(f.tensor(b + "ffn_down.weight")));
        }
        freq = frequencies(c, f.metadata().getString(c.architecture() + ".rope.scaling.type", "none"));
        keys = new double[c.layers()][maxTokens][];
        values = new double[c.layers()][maxTokens][];
    }

    public LlamaConfig config() {
        return c;
    }

    private static double[] optional(GgufFile f, String name) {
        GgufTensor t = f.find(name);
        return t == null ? null : vector(t);
    }

    static double[] vector(GgufTensor t) {
        float[] x = t.toFloats();
        double[] d = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            d[i] = x[i];
        }
        return d;
    }

    /** Rows of {@code dims[0]} values: row j holds output j's weights (ggml's layout). */
    static double[][] matrix(GgufTensor t) {
        float[] x = t.toFloats();
        int cols = (int) t.dim(0);
        int rows = x.length / cols;
        double[][] m = new double[rows][cols];
        for (int j = 0; j < rows; j++) {
            for (int i = 0; i < cols; i++) {
                m[j][i] = x[j * cols + i];
            }
        }
        return m;
    }

    private static double[] matvec(double[][] w, double[] x, double[] bias) {
        double[] y = new double[w.length];
        for (int j = 0; j < w.length; j++) {
            double s = 0;
            for (int i = 0; i < x.length; i++) {
                s += w[j][i] * x[i];
            }
            y[j] = bias == null ? s : s + bias[j];
        }
        return y;
    }

    private double[] rmsNorm(double[] x, double[] w) {
        double ss = 0;
        for (double v : x) {
            ss += v * v;
        }
        double inv = 1 / Math.sqrt(ss / x.length + c.rmsEps());
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = x[i] * inv * w[i];
        }
        return y;
    }

    /**
     * base^(-2i/d), with Llama 3.1's rescaling written as its converter defines the factors: wavelengths shorter
     * than original_context / high_freq_factor keep their frequency, longer than original_context /
     * low_freq_factor are divided by the factor, and between, 1 / ((1 - smooth) / factor + smooth) with
     * smooth = (original_context / wavelength - low) / (high - low).
     */
    private static double[] frequencies(LlamaConfig c, String scaling) {
        int hd = c.headDim();
        double[] f = new double[hd / 2];
        for (int i = 0; i < f.length; i++) {
            f[i] = Math.pow(c.ropeTheta(), -2.0 * i / hd);
            if (scaling.equals("llama3") && c.ropeScalingFactor() > 0) {
                double wavelen = 2 * Math.PI / f[i];
                double low = c.ropeLowFreqFactor();
                double high = c.ropeHighFreqFactor();
                double old = c.ropeOriginalContext();
                double ropeFactor;
                if (wavelen < old / high) {
                    ropeFactor = 1;
                } else if (wavelen > old / low) {
                    ropeFactor = c.ropeScalingFactor();
                } else {
                    double smooth = (old / wavelen - low) / (high - low);
                    ropeFactor = 1 / ((1 - smooth) / c.ropeScalingFactor() + smooth);
                }
                f[i] /= ropeFactor;
            }
        }
        return f;
    }

    /** Each head of {@code v} RMS-normed by {@code w} (one weight per element of a head), in place. */
    private void normHeads(double[] v, double[] w) {
        int hd = w.length;
        for (int h = 0; h < v.length / hd; h++) {
            double[] head = java.util.Arrays.copyOfRange(v, h * hd, (h + 1) * hd);
            System.arraycopy(rmsNorm(head, w), 0, v, h * hd, hd);
        }
    }

    /** Rotates each head of {@code v} for position {@code p}. */
    private void rope(double[] v, int nHeads, int p) {
        int hd = c.headDim();
        boolean neox = c.architecture().equals("qwen2") || c.architecture().equals("qwen3");
        for (int h = 0; h < nHeads; h++) {
            for (int i = 0; i < hd / 2; i++) {
                double theta = p * freq[i];
                double cos = Math.cos(theta);
                double sin = Math.sin(theta);
                int a = h * hd + (neox ? i : 2 * i);
                int b = neox ? a + hd / 2 : a + 1;
                double x0 = v[a];
                double x1 = v[b];
                v[a] = x0 * cos - x1 * sin;
                v[b] = x0 * sin + x1 * cos;
            }
        }
    }

    /** Feeds {@code token} at the next position and returns the logits that follow it. */
    public double[] next(int token) {
        double[] x = embed[token].clone();
        int hd = c.headDim();
        int group = c.heads() / c.kvHeads();
        for (int l = 0; l < layers.length; l++) {
            Layer L = layers[l];
            double[] h = rmsNorm(x, L.attnNorm);
            double[] q = matvec(L.wq, h, L.bq);
            double[] k = matvec(L.wk, h, L.bk);
            double[] v = matvec(L.wv, h, L.bv);
            if (L.qNorm != null) {
                normHeads(q, L.qNorm);
                normHeads(k, L.kNorm);
            }
            rope(q, c.heads(), pos);
            rope(k, c.kvHeads(), pos);
            keys[l][pos] = k;
            values[l][pos] = v;
            double[] att = new double[c.qDim()];
            for (int hh = 0; hh < c.heads(); hh++) {
                int kv = hh / group;
                double[] s = new double[pos + 1];
                double max = Double.NEGATIVE_INFINITY;
                for (int t = 0; t <= pos; t++) {
                    double d = 0;
                    for (int i = 0; i < hd; i++) {
                        d += q[hh * hd + i] * keys[l][t][kv * hd + i];
                    }
                    s[t] = d / Math.sqrt(hd);
                    max = Math.max(max, s[t]);
                }
                double sum = 0;
                for (int t = 0; t <= pos; t++) {
                    s[t] = Math.exp(s[t] - max);
                    sum += s[t];
                }
                for (int t = 0; t <= pos; t++) {
                    for (int i = 0; i < hd; i++) {
                        att[hh * hd + i] += s[t] / sum * values[l][t][kv * hd + i];
                    }
                }
            }
            double[] o = matvec(L.wo, att, null);
            for (int i = 0; i < x.length; i++) {
                x[i] += o[i];
            }
            double[] f = rmsNorm(x, L.ffnNorm);
            double[] g = matvec(L.gate, f, null);
            double[] u = matvec(L.up, f, null);
            for (int i = 0; i < g.length; i++) {
                g[i] = g[i] / (1 + Math.exp(-g[i])) * u[i];
            }
            double[] d = matvec(L.down, g, null);
            for (int i = 0; i < x.length; i++) {
                x[i] += d[i];
            }
        }
        pos++;
        return matvec(output, rmsNorm(x, outNorm), null);
    }

    static int argmax(double[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }

    /** The gap between the largest and second largest logit at each greedy step of the last {@link #greedy}. */
    public double[] margins;

    /**
     * Greedy continuation of {@code prompt} by {@code n} tokens, never choosing a token in {@code banned} (what
     * llama.cpp's ignore_eos does with the end-of-generation tokens).
     */
    public int[] greedy(int[] prompt, int n, int... banned) {
        double[] logits = null;
        for (int t : prompt) {
            logits = next(t);
        }
        int[] out = new int[n];
        margins = new double[n];
        for (int i = 0; i < n; i++) {
            for (int b : banned) {
                logits[b] = Double.NEGATIVE_INFINITY;
            }
            out[i] = argmax(logits);
            double second = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < logits.length; j++) {
                if (j != out[i]) {
                    second = Math.max(second, logits[j]);
                }
            }
            margins[i] = logits[out[i]] - second;
            if (i + 1 < n) {
                logits = next(out[i]);
            }
        }
        return out;
    }
}
