package dev.rlx.opt.decompose;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One small graph per composite op and attribute variant, on odd sizes, with a display name on the composite
 * node: the structural tests' fixtures.
 */
final class CompositeGraphs {
    private CompositeGraphs() {}

    static List<Graph> all(DType t) {
        List<Graph> gs = new ArrayList<>();
        for (int axis = 0; axis < 3; axis++) {
            int a = axis;
            gs.add(unaryOn(t, "softmax_axis" + a, x -> x.graph().softmax(x, a), 3, 5, 7));
            gs.add(unaryOn(t, "log_softmax_axis" + a, x -> x.graph().logSoftmax(x, a), 3, 5, 7));
        }
        for (int axis : new int[] {0, 1, 2}) {
            for (boolean beta : new boolean[] {false, true}) {
                gs.add(norm(t, "layer_norm_axis" + axis + (beta ? "_beta" : ""), false, axis, beta));
                gs.add(norm(t, "rms_norm_axis" + axis + (beta ? "_beta" : ""), true, axis, beta));
            }
        }
        gs.add(groupNorm(t, 3, 2, 6));
        gs.add(groupNorm(t, 3, 2, 6, 5));
        gs.add(groupNorm(t, 1, 2, 4, 3, 5));
        gs.add(groupNorm(t, 5, 1, 5, 7));
        for (UnaryKind k : List.of(UnaryKind.GELU, UnaryKind.GELU_TANH, UnaryKind.SILU, UnaryKind.SIGMOID)) {
            gs.add(unaryOn(t, k.label(), x -> x.graph().unary(k, x), 3, 7));
        }
        for (HeadLayout layout : HeadLayout.values()) {
            for (boolean rank3 : layout == HeadLayout.BSHD ? new boolean[] {true, false} : new boolean[] {false}) {
                Op.Attention base = Op.Attention.of(4, 2, 3).withLayout(layout);
                gs.add(attention(t, base, rank3, 5, 7, null));
                gs.add(attention(t, base.causal(), rank3, 5, 7, null));
                gs.add(attention(t, base.causal(), rank3, 7, 5, null));
                gs.add(attention(t, base.slidingWindow(2).withSoftcap(3f).withScale(0.3f), rank3, 5, 5, null));
                gs.add(attention(t, base.causal(), rank3, 5, 7, DType.BOOL));
                gs.add(attention(t, base, rank3, 5, 7, t));
            }
        }
        for (HeadLayout layout : HeadLayout.values()) {
            for (boolean interleaved : new boolean[] {false, true}) {
                for (int rot : new int[] {6, 4}) {
                    Op.Rope spec = new Op.Rope(6, rot, interleaved, layout);
                    gs.add(rope(t, spec, false, 2));
                    gs.add(rope(t, spec, false, 3));
                    if (layout == HeadLayout.BSHD) {
                        gs.add(rope(t, spec, true, 2));
                    }
                }
            }
        }
        gs.add(fused(t));
        gs.add(fusedMatMul(t, false, false));
        gs.add(fusedMatMul(t, true, true));
        for (boolean rms : new boolean[] {false, true}) {
            gs.add(addNorm(t, rms, 1, false));
            gs.add(addNorm(t, rms, 2, true));
        }
        return gs;
    }

    interface Build {
        Value on(Value x);
    }

    static Graph unaryOn(DType t, String name, Build op, int... dims) {
        Graph g = new Graph(name);
        Value x = g.input("x", Shape.of(t, dims));
        g.setOutputs(g.name(op.on(x), "out"));
        return g;
    }

    static Graph norm(DType t, String name, boolean rms, int axis, boolean withBeta) {
        Graph g = new Graph(name);
        int[] dims = {2, 3, 5};
        Value x = g.input("x", Shape.of(t, dims));
        Shape p = Shape.of(t, Arrays.copyOfRange(dims, axis, 3));
        Value gamma = g.param("gamma", p);
        Value beta = withBeta ? g.param("beta", p) : null;
        Value y = rms ? g.rmsNorm(x, gamma, beta, axis, 1e-5f) : g.layerNorm(x, gamma, beta, axis, 1e-5f);
        g.setOutputs(g.name(y, "out"));
        return g;
    }

    static Graph groupNorm(DType t, int groups, int... dims) {
        Graph g = new Graph("group_norm_" + groups + "_rank" + dims.length);
        Value x = g.input("x", Shape.of(t, dims));
        Value gamma = g.param("gamma", Shape.of(t, dims[1]));
        Value beta = g.param("beta", Shape.of(t, dims[1]));
        g.setOutputs(g.name(g.groupNorm(x, gamma, beta, groups, 1e-5f), "out"));
        return g;
    }

    /** Attention with B = 2; {@code maskType} null for no mask operand, BOOL for a keep-mask, else additive. */
    static Graph attention(DType t, Op.Attention a, boolean rank3, int sq, int sk, DType maskType) {
        Graph g = new Graph("attention_" + a.layout() + (rank3 ? "3" : "4") + "_" + a.mask() + "_" + sq + "x" + sk
                + (maskType == null ? "" : "_mask_" + maskType.label()));
        Value q = g.input("q", headShape(t, a.layout(), rank3, 2, sq, a.numHeads(), a.headDim()));
        Value k = g.input("k", headShape(t, a.layout(), rank3, 2, sk, a.numKvHeads(), a.headDim()));
        Value v = g.input("v", headShape(t, a.layout(), rank3, 2, sk, a.numKvHeads(), a.headDim()));
        Value m = maskType == null ? null : g.input("mask", Shape.of(maskType, 2, 1, sq, sk));
        g.setOutputs(g.name(g.attention(q, k, v, m, a), "out"));
        return g;
    }

    static Shape headShape(DType t, HeadLayout layout, boolean rank3, int b, int s, int h, int d) {
        if (layout == HeadLayout.BHSD) {
            return Shape.of(t, b, h, s, d);
        }
        return rank3 ? Shape.of(t, b, s, h * d) : Shape.of(t, b, s, h, d);
    }

    static Graph rope(DType t, Op.Rope spec, boolean rank3, int tableRank) {
        Graph g = new Graph("rope_" + spec.layout() + (rank3 ? "3" : "4") + (spec.interleaved() ? "_interleaved" : "")
                + "_rot" + spec.rotaryDim() + "_table" + tableRank);
        int b = 2;
        int s = 5;
        int h = 3;
        Value x = g.input("x", headShape(t, spec.layout(), rank3, b, s, h, spec.headDim()));
        Shape table = tableRank == 2 ? Shape.of(t, s, spec.rotaryDim() / 2) : Shape.of(t, b, s, spec.rotaryDim() / 2);
        Value cos = g.input("cos", table);
        Value sin = g.input("sin", table);
        g.setOutputs(g.name(g.rope(x, cos, sin, spec), "out"));
        return g;
    }

    /** {@code gelu(x * y + z)} with z broadcast along rows and a step the result does not read. */
    static Graph fused(DType t) {
        Graph g = new Graph("fused");
        Value x = g.input("x", Shape.of(t, 3, 5));
        Value y = g.input("y", Shape.of(t, 3, 5));
        Value z = g.input("z", Shape.of(t, 5));
        ElementwiseProgram p = ElementwiseProgram.builder(3).binary(BinaryKind.MUL, 0, 1).unary(UnaryKind.EXP, 0)
                .binary(BinaryKind.ADD, 3, 2).unary(UnaryKind.GELU, 5).build();
        g.setOutputs(g.name(g.apply1(new Op.Fused(p), x, y, z), "out"));
        return g;
    }

    /** {@code silu(a @ b + bias)}, optionally with both operands read transposed. */
    static Graph fusedMatMul(DType t, boolean transA, boolean transB) {
        Graph g = new Graph("fused_matmul" + (transA ? "_tA" : "") + (transB ? "_tB" : ""));
        Value a = g.input("a", transA ? Shape.of(t, 2, 7, 3) : Shape.of(t, 2, 3, 7));
        Value b = g.param("b", transB ? Shape.of(t, 5, 7) : Shape.of(t, 7, 5));
        Value bias = g.param("bias", Shape.of(t, 5));
        ElementwiseProgram p = ElementwiseProgram.builder(2).binary(BinaryKind.ADD, 0, 1).unary(UnaryKind.SILU, 2).build();
        g.setOutputs(g.name(g.apply1(new Op.FusedMatMul(p, transA, transB), a, b, bias), "out"));
        return g;
    }

    /** Both outputs of an add-norm over axes {@code [axis, 3)} of {@code [2, 3, 5]}. */
    static Graph addNorm(DType t, boolean rms, int axis, boolean withBeta) {
        Graph g = new Graph("add_norm" + (rms ? "_rms" : "_layer") + axis + (withBeta ? "_beta" : ""));
        int[] dims = {2, 3, 5};
        Value x = g.input("x", Shape.of(t, dims));
        Value res = g.input("residual", Shape.of(t, dims));
        Shape p = Shape.of(t, Arrays.copyOfRange(dims, axis, 3));
        List<Value> in = new ArrayList<>(List.of(x, res, g.param("gamma", p)));
        if (withBeta) {
            in.add(g.param("beta", p));
        }
        List<Value> outs = g.apply(new Op.AddNorm(rms, axis, 1e-5f), in);
        g.name(outs.get(0), "out");
        g.setOutputs(outs);
        return g;
    }
}
