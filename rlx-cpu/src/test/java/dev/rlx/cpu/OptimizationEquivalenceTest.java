package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.models.LlamaBlock;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.TensorView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The optimising passes (simplification, constant folding, CSE, dead code, fusion, in-place planning) do
 * not change results: each graph runs with and without them on the same random inputs, and the optimised
 * one has fewer nodes and kernels.
 */
class OptimizationEquivalenceTest {

    /** Runs {@code g} with the given options; returns outputs, node count, kernel count and arena bytes. */
    private record Result(List<double[]> outputs, int nodes, int kernels, long arena) {}

    private static Result run(Graph g, Map<String, float[]> data, boolean optimize) {
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withOptimize(optimize));
             CompiledGraph c = s.compile(g)) {
            data.forEach((k, v) -> {
                if (c.inputNames().contains(k)) {
                    c.setInput(k, v);
                } else {
                    c.setParam(k, v);
                }
            });
            c.run();
            List<double[]> out = new ArrayList<>();
            for (TensorView v : c.outputs()) {
                double[] d = new double[(int) v.size()];
                v.copyTo(d);
                out.add(d);
            }
            return new Result(out, c.graph().size(), c.kernelCount(), c.arenaBytes());
        }
    }

    private static void assertEquivalent(Graph g, Map<String, float[]> data, double rtol) {
        Result plain = run(g, data, false);
        Result opt = run(g, data, true);
        for (int i = 0; i < plain.outputs().size(); i++) {
            assertClose(plain.outputs().get(i), opt.outputs().get(i), 1e-6, rtol, g.name() + " output " + i);
        }
        assertTrue(opt.nodes() < plain.nodes(), g.name() + ": nodes " + plain.nodes() + " -> " + opt.nodes());
        assertTrue(opt.kernels() < plain.kernels(), g.name() + ": kernels " + plain.kernels() + " -> " + opt.kernels());
    }

    private static float[] random(Random r, Shape s) {
        float[] f = new float[(int) s.elementCount()];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) (2 * r.nextDouble() - 1);
        }
        return f;
    }

    @Test
    void decoderBlock_optimisedMatchesPlain() {
        LlamaBlock b = new LlamaBlock(2, 9, 64, 4, 2, 16, 96, 1e-5f, 10_000);
        Map<String, float[]> data = new HashMap<>();
        b.randomWeights(5).forEach((k, v) -> data.put(k, v.toFloatArray()));
        data.put("x", b.randomInput(6).toFloatArray());
        assertEquivalent(b.build(), data, 1e-5);
    }

    @Test
    void bertStyleLayer_withMaskResidualAndFoldableConstants() {
        Random r = new Random(3);
        int s = 12;
        int d = 32;
        Graph g = new Graph("bert_layer");
        Value x = g.input("x", Shape.of(DType.F32, 1, s, d));
        Value keep = g.input("keep", Shape.of(DType.F32, 1, s));           // 1 = token, 0 = padding
        Value wq = g.param("wq", Shape.of(DType.F32, d, d));
        Value wo = g.param("wo", Shape.of(DType.F32, d, d));
        Value bo = g.param("bo", Shape.of(DType.F32, d));
        Value w1 = g.param("w1", Shape.of(DType.F32, d, 4 * d));
        Value b1 = g.param("b1", Shape.of(DType.F32, 4 * d));
        Value w2 = g.param("w2", Shape.of(DType.F32, 4 * d, d));
        Value gamma = g.param("gamma", Shape.of(DType.F32, d));
        Value beta = g.param("beta", Shape.of(DType.F32, d));
        // (1 - keep) * -10000 as an additive mask: a constant scale folded with the ONNX-style arithmetic
        Value big = g.mul(g.scalar(-5000f), g.scalar(2f));
        Value mask = g.reshape(g.mul(g.sub(g.scalar(1f), keep), big), 1, 1, 1, s);
        Value q = g.matmul(x, wq);
        Value att = g.attention(q, q, q, mask, Op.Attention.of(4, 4, d / 4));
        Value h = g.layerNorm(g.add(x, g.add(g.matmul(att, wo), bo)), gamma, beta, -1, 1e-12f);
        Value ff = g.matmul(g.gelu(g.add(g.matmul(h, w1), b1)), w2);
        Value out = g.layerNorm(g.add(h, ff), gamma, beta, -1, 1e-12f);
        g.setOutputs(g.add(g.mul(out, g.scalar(1f)), g.scalar(0f))); // neutral ops the simplifier removes
        Map<String, float[]> data = new HashMap<>();
        for (Value v : g.params()) {
            float[] w = random(r, v.shape());
            for (int i = 0; i < w.length; i++) {
                w[i] *= 0.3f;
            }
            data.put(g.nameOf(v), w);
        }
        data.put("x", random(r, x.shape()));
        float[] k = new float[s];
        for (int i = 0; i < s; i++) {
            k[i] = i < 9 ? 1 : 0;
        }
        data.put("keep", k);
        assertEquivalent(g, data, 1e-5);
    }

    @Test
    void writtenOutAttention_fusesIntoOneAttention_andMatches() {
        Random r = new Random(12);
        int b = 2, s = 9, h = 4, d = 8;
        Graph g = new Graph("onnx_attention"); // as PyTorch's ONNX export writes BERT's self-attention
        Value q = g.input("q", Shape.of(DType.F32, b, s, h * d));
        Value k = g.input("k", Shape.of(DType.F32, b, s, h * d));
        Value v = g.input("v", Shape.of(DType.F32, b, s, h * d));
        Value mask = g.input("mask", Shape.of(DType.F32, b, 1, 1, s));
        Value scores = g.matmul(g.transpose(g.reshape(q, b, s, h, d), 0, 2, 1, 3),
                g.transpose(g.reshape(k, b, s, h, d), 0, 2, 3, 1));
        Value masked = g.add(g.div(scores, g.scalar((float) Math.sqrt(d))), mask);
        Value p = g.reshape(g.softmax(g.reshape(masked, b * h * s, s), 1), b, h, s, s);
        Value o = g.matmul(p, g.transpose(g.reshape(v, b, s, h, d), 0, 2, 1, 3));
        g.setOutputs(g.reshape(g.transpose(o, 0, 2, 1, 3), b, s, h * d));
        Map<String, float[]> data = new HashMap<>();
        for (Value x : List.of(q, k, v)) {
            data.put(g.nameOf(x), random(r, x.shape()));
        }
        float[] m = new float[b * s];
        for (int i = 0; i < m.length; i++) {
            m[i] = i % s < 6 + i / s ? 0f : -3.4028235e38f; // ONNX exports' (1 - keep) * float.min padding
        }
        data.put("mask", m);
        assertEquivalent(g, data, 1e-5);
        try (Session se = new Session(Device.CPU); CompiledGraph c = se.compile(g)) {
            assertEquals(1, c.kernelCount(), c.graph().toString());
        }
    }

    @Test
    void writtenOutGelu_joinsTheMatmulEpilogue_andMatches() {
        Random r = new Random(14);
        Graph g = new Graph("onnx_gelu"); // bias add and GELU as PyTorch's ONNX export writes them
        Value x = g.input("x", Shape.of(DType.F32, 6, 24));
        Value w = g.param("w", Shape.of(DType.F32, 24, 40));
        Value b = g.param("b", Shape.of(DType.F32, 40));
        Value h = g.add(b, g.matmul(x, w));
        Value erf = g.erf(g.div(h, g.scalar(1.4142135f)));
        g.setOutputs(g.mul(g.mul(h, g.add(erf, g.scalar(1f))), g.scalar(0.5f)));
        Map<String, float[]> data = new HashMap<>();
        for (Value v : List.of(x, w, b)) {
            data.put(g.nameOf(v), random(r, v.shape()));
        }
        assertEquivalent(g, data, 1e-5);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            assertEquals(1, c.kernelCount(), c.graph().toString());
        }
    }

    @Test
    void writtenOutLayerNorm_fusesIntoOneKernel_andMatches() {
        Random r = new Random(8);
        Graph g = new Graph("onnx_layer_norm"); // as PyTorch's ONNX export writes LayerNorm
        Value x = g.input("x", Shape.of(DType.F32, 2, 5, 48));
        Value gamma = g.param("gamma", Shape.of(DType.F32, 48));
        Value beta = g.param("beta", Shape.of(DType.F32, 48));
        Value d = g.sub(x, g.reduceMean(x, true, 2));
        Value var = g.reduceMean(g.pow(d, g.scalar(2f)), true, 2);
        g.setOutputs(g.add(g.mul(g.div(d, g.sqrt(g.add(var, g.scalar(1e-12f)))), gamma), beta));
        Map<String, float[]> data = new HashMap<>();
        for (Value v : List.of(x, gamma, beta)) {
            data.put(g.nameOf(v), random(r, v.shape()));
        }
        assertEquivalent(g, data, 1e-5);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            assertEquals(1, c.kernelCount(), c.graph().toString());
        }
    }

    @Test
    void elementwiseHeavyGraph_withRepeatedSubexpressions() {
        Random r = new Random(4);
        Graph g = new Graph("ew");
        Value x = g.input("x", Shape.of(DType.F32, 33, 70));
        Value row = g.input("row", Shape.of(DType.F32, 70));
        Value col = g.input("col", Shape.of(DType.F32, 33, 1));
        Value a = g.silu(g.add(g.mul(x, row), col));
        Value b = g.silu(g.add(g.mul(x, row), col)); // the same again: CSE
        Value c = g.tanh(g.sub(g.exp(g.neg(a)), g.div(b, g.add(g.abs(col), g.scalar(1f)))));
        g.setOutputs(g.add(c, g.reduceMax(c, true, 1)));
        assertEquivalent(g, Map.of("x", random(r, x.shape()), "row", random(r, row.shape()), "col",
                random(r, col.shape())), 1e-6);
    }

    @Test
    void constantFolding_usesKernelNumerics() {
        // gelu of a constant table: folded by the CPU kernel, so bit-identical to computing it at run time
        Graph g = new Graph("fold");
        float[] t = new float[64];
        for (int i = 0; i < t.length; i++) {
            t[i] = (i - 32) / 8f;
        }
        Value table = g.gelu(g.constant(Tensor.of(t, 64)));
        Value x = g.input("x", Shape.of(DType.F32, 64));
        g.setOutputs(g.add(x, table), g.sqrt(g.exp(g.scalar(2f))));
        Map<String, float[]> data = Map.of("x", random(new Random(1), x.shape()));
        Result plain = run(g, data, false);
        Result opt = run(g, data, true);
        assertClose(plain.outputs().get(0), opt.outputs().get(0), 0, 0, "folded gelu table");
        assertClose(plain.outputs().get(1), opt.outputs().get(1), 0, 0, "folded scalar");
        assertTrue(opt.kernels() == 1, "only the add runs: " + opt.kernels() + " kernels");
    }
}
