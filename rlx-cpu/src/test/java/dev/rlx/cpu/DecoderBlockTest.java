package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;

import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.models.LlamaBlock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Llama-style decoder block built from the IR ({@link LlamaBlock}) against a float64 reference written
 * out here step by step: RMS norm, projections, rotate-half RoPE, causal grouped-query attention, SwiGLU.
 */
class DecoderBlockTest {

    @Test
    void llamaBlock_matchesFloat64Reference() {
        // batch 2, seq 7, dim 64, 4 query heads sharing 2 kv heads of 16, ffn 96
        LlamaBlock b = new LlamaBlock(2, 7, 64, 4, 2, 16, 96, 1e-5f, 10_000);
        Map<String, Tensor> w = b.randomWeights(3);
        Tensor x = b.randomInput(4);
        Map<String, Object> data = new HashMap<>(w);
        data.put("x", x.toFloatArray());
        Map<String, Object> asArrays = new HashMap<>();
        data.forEach((k, v) -> asArrays.put(k, v instanceof Tensor t ? t.toFloatArray() : v));
        double[] out = Runner.run(b.build(), asArrays).get(0);
        // f32 end to end over sums of at most 96 terms and a softmax: errors stay near 1e-6 on values ~1.
        assertClose(reference(b, w, x), out, 5e-5, 5e-5, "decoder block");
    }

    @Test
    void llamaBlock_demoSize_parallelPathMatchesReference() {
        LlamaBlock b = LlamaBlock.demo();
        Map<String, Tensor> w = b.randomWeights(42);
        Tensor x = b.randomInput(43);
        Map<String, Object> data = new HashMap<>();
        w.forEach((k, v) -> data.put(k, v.toFloatArray()));
        data.put("x", x.toFloatArray());
        double[] out = Runner.run(b.build(), data).get(0);
        assertClose(reference(b, w, x), out, 2e-4, 1e-4, "demo decoder block");
    }

    /** The block in double precision, written from the definitions. */
    static double[] reference(LlamaBlock b, Map<String, Tensor> w, Tensor xt) {
        int bs = b.batch();
        int s = b.seq();
        int d = b.dim();
        int hd = b.headDim();
        int h = b.heads();
        int kvh = b.kvHeads();
        int rows = bs * s;
        double[] x = xt.toDoubleArray();
        double[] hn = rmsNorm(x, w.get("attn_norm").toDoubleArray(), rows, d, b.eps());
        double[] q = matmul(hn, w.get("wq").toDoubleArray(), rows, d, h * hd);
        double[] k = matmul(hn, w.get("wk").toDoubleArray(), rows, d, kvh * hd);
        double[] v = matmul(hn, w.get("wv").toDoubleArray(), rows, d, kvh * hd);
        rope(q, bs, s, h, hd, b.ropeTheta());
        rope(k, bs, s, kvh, hd, b.ropeTheta());
        double[] att = new double[rows * h * hd];
        double scale = 1 / Math.sqrt(hd);
        for (int bi = 0; bi < bs; bi++) {
            for (int head = 0; head < h; head++) {
                int kvHead = head / (h / kvh);
                for (int i = 0; i < s; i++) {
                    double[] sc = new double[i + 1]; // causal: keys 0..i
                    double max = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j <= i; j++) {
                        double dot = 0;
                        for (int e = 0; e < hd; e++) {
                            dot += q[((bi * s + i) * h + head) * hd + e] * k[((bi * s + j) * kvh + kvHead) * hd + e];
                        }
                        sc[j] = dot * scale;
                        max = Math.max(max, sc[j]);
                    }
                    double sum = 0;
                    for (int j = 0; j <= i; j++) {
                        sc[j] = Math.exp(sc[j] - max);
                        sum += sc[j];
                    }
                    for (int e = 0; e < hd; e++) {
                        double acc = 0;
                        for (int j = 0; j <= i; j++) {
                            acc += sc[j] / sum * v[((bi * s + j) * kvh + kvHead) * hd + e];
                        }
                        att[((bi * s + i) * h + head) * hd + e] = acc;
                    }
                }
            }
        }
        double[] o = matmul(att, w.get("wo").toDoubleArray(), rows, h * hd, d);
        double[] x1 = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            x1[i] = x[i] + o[i];
        }
        double[] h2 = rmsNorm(x1, w.get("ffn_norm").toDoubleArray(), rows, d, b.eps());
        double[] gate = matmul(h2, w.get("w_gate").toDoubleArray(), rows, d, b.ffn());
        double[] up = matmul(h2, w.get("w_up").toDoubleArray(), rows, d, b.ffn());
        for (int i = 0; i < gate.length; i++) {
            gate[i] = gate[i] / (1 + Math.exp(-gate[i])) * up[i];
        }
        double[] down = matmul(gate, w.get("w_down").toDoubleArray(), rows, b.ffn(), d);
        for (int i = 0; i < x1.length; i++) {
            x1[i] += down[i];
        }
        return x1;
    }

    static double[] rmsNorm(double[] x, double[] g, int rows, int d, double eps) {
        double[] y = new double[x.length];
        for (int r = 0; r < rows; r++) {
            double ss = 0;
            for (int i = 0; i < d; i++) {
                ss += x[r * d + i] * x[r * d + i];
            }
            double inv = 1 / Math.sqrt(ss / d + eps);
            for (int i = 0; i < d; i++) {
                y[r * d + i] = x[r * d + i] * inv * g[i];
            }
        }
        return y;
    }

    static double[] matmul(double[] a, double[] b, int m, int k, int n) {
        double[] c = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int p = 0; p < k; p++) {
                double av = a[i * k + p];
                for (int j = 0; j < n; j++) {
                    c[i * n + j] += av * b[p * n + j];
                }
            }
        }
        return c;
    }

    /** Rotate-half RoPE in place on [batch, seq, heads * hd], position = sequence index. */
    static void rope(double[] t, int bs, int s, int heads, int hd, double theta) {
        int half = hd / 2;
        for (int bi = 0; bi < bs; bi++) {
            for (int pos = 0; pos < s; pos++) {
                for (int head = 0; head < heads; head++) {
                    int base = ((bi * s + pos) * heads + head) * hd;
                    for (int i = 0; i < half; i++) {
                        double angle = pos * Math.pow(theta, -2.0 * i / hd);
                        // the graph's tables are f32 constants: round the same way
                        double c = (float) Math.cos(angle);
                        double sn = (float) Math.sin(angle);
                        double a = t[base + i];
                        double bb = t[base + i + half];
                        t[base + i] = a * c - bb * sn;
                        t[base + i + half] = bb * c + a * sn;
                    }
                }
            }
        }
    }
}
