package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Attrs;
import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What each pass does to a graph's structure. That the rewritten graphs compute the same values is tested
 * on the CPU backend (OptimizationEquivalenceTest in rlx-cpu), where they can run.
 */
class PassesTest {
    private static final Shape X = Shape.of(DType.F32, 4, 8);

    private static long count(Graph g, OpKind k) {
        return g.nodes().stream().filter(n -> n.kind() == k).count();
    }

    private static Graph run(Pass p, Graph g) {
        Graph out = p.apply(g);
        out.verify();
        return out;
    }

    // ---------------------------------------------------------------- simplification

    @Test
    void simplify_neutralOperandsAndChains_disappear() {
        Graph g = new Graph("s");
        Value x = g.input("x", X);
        Value a = g.add(x, g.scalar(0f));                       // x + 0
        Value b = g.mul(g.constant(new float[] {1, 1, 1, 1, 1, 1, 1, 1}, 8), a); // 1 * x (commutative side)
        Value c = g.reshape(g.reshape(b, 32), 2, 16);           // reshape chain
        Value d = g.transpose(g.transpose(g.reshape(c, 4, 8), 1, 0), 1, 0); // transpose of transpose
        Value e = g.cast(g.neg(g.neg(d)), DType.F32);           // -(-x), identity cast
        Value f = g.sub(g.scalar(0f), e);                       // 0 - x is not x: stays
        g.setOutputs(f, c);
        Graph s = run(new DeadCodeElimination(), run(new AlgebraicSimplification(), g));
        assertTrue(s.size() < g.size(), s.toString());
        assertEquals(0, count(s, OpKind.TRANSPOSE), s.toString());
        assertEquals(1, count(s, OpKind.RESHAPE), s.toString()); // x reshaped to [2,16] once
        assertEquals(0, count(s, OpKind.CAST) + count(s, OpKind.UNARY), s.toString());
        // the remaining sub reads x directly
        Node sub = s.nodes().stream().filter(n -> n.kind() == OpKind.BINARY).findFirst().orElseThrow();
        assertEquals(OpKind.INPUT, sub.inputs().get(1).node().kind());
    }

    @Test
    void simplify_broadcastingNeutral_isKept() {
        Graph g = new Graph("b");
        Value x = g.input("x", Shape.of(DType.F32, 8));
        g.setOutputs(g.add(x, g.constant(new float[32], 4, 8))); // x + zeros[4,8] broadcasts x: not x
        assertSame(g, new AlgebraicSimplification().apply(g));
    }

    @Test
    void simplify_powOfTwo_becomesASquare_andOtherPowsStay() {
        Graph g = new Graph("p");
        Value x = g.input("x", X);
        Value sq = g.binary(BinaryKind.POW, x, g.scalar(2f));
        Value cube = g.binary(BinaryKind.POW, x, g.scalar(3f));
        float[] twos = new float[32];
        java.util.Arrays.fill(twos, 2f);
        Value wide = g.binary(BinaryKind.POW, g.input("v", Shape.of(DType.F32, 8)), g.constant(twos, 4, 8));
        g.setOutputs(sq, cube, wide);
        Graph s = run(new DeadCodeElimination(), run(new AlgebraicSimplification(), g));
        Node square = s.outputs().get(0).node();
        assertEquals(new Op.Binary(BinaryKind.MUL), square.op(), s.toString());
        assertSame(square.inputs().get(0), square.inputs().get(1));
        assertEquals(new Op.Binary(BinaryKind.POW), s.outputs().get(1).node().op());
        assertEquals(new Op.Binary(BinaryKind.POW), s.outputs().get(2).node().op()); // the 2s broadcast v: kept
    }

    /** What the rewrite relies on: the kernels' pow (StrictMath, f32 through double) squares with the bits of x*x. */
    @Test
    void simplify_powOfTwo_hasTheBitsOfTheSquare() {
        java.util.Random r = new java.util.Random(22);
        float[] special = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 1e-23f, 1.8446743e19f,
            1.8446744e19f, Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 1f, -1f};
        for (int i = 0; i < 2_000_000 + special.length; i++) {
            float x = i < special.length ? special[i] : Float.intBitsToFloat(r.nextInt());
            assertEquals(Float.floatToRawIntBits(x * x), Float.floatToRawIntBits((float) StrictMath.pow(x, 2.0)),
                    "f32 " + x);
            double d = i < special.length ? special[i] : Double.longBitsToDouble(r.nextLong());
            assertEquals(Double.doubleToRawLongBits(d * d), Double.doubleToRawLongBits(StrictMath.pow(d, 2.0)), "f64 " + d);
        }
    }

    // ---------------------------------------------------------------- CSE

    @Test
    void cse_mergesEqualPureNodes_keepsImpureOnes() {
        Graph g = new Graph("c");
        Value x = g.input("x", X);
        Value a1 = g.exp(g.add(x, g.scalar(2f)));
        Value a2 = g.exp(g.add(x, g.scalar(2f)));
        List<Value> c1 = g.custom("log_it", Attrs.EMPTY, List.of(X), x);
        List<Value> c2 = g.custom("log_it", Attrs.EMPTY, List.of(X), x);
        List<Value> p1 = g.custom("pure_op", Attrs.EMPTY, List.of(X), x);
        Value p2 = g.apply(new Op.Custom("pure_op", Attrs.EMPTY, List.of(X), true), x).get(0);
        Value p3 = g.apply(new Op.Custom("pure_op", Attrs.EMPTY, List.of(X), true), x).get(0);
        g.setOutputs(g.add(a1, a2), c1.get(0), c2.get(0), p1.get(0), p2, p3);
        Graph s = run(new DeadCodeElimination(), run(new CommonSubexpressionElimination(), g));
        assertEquals(1, count(s, OpKind.UNARY), "the two exp chains merge");
        assertEquals(1, count(s, OpKind.CONSTANT), "equal constants merge");
        assertEquals(4, count(s, OpKind.CUSTOM), "impure customs stay apart; the two pure ones merge");
    }

    @Test
    void dce_keepsImpureCustomOpsEvenIfUnused() {
        Graph g = new Graph("d");
        Value x = g.input("x", X);
        g.custom("side_effect", Attrs.EMPTY, List.of(X), g.exp(x));
        g.apply(new Op.Custom("pure_unused", Attrs.EMPTY, List.of(X), true), x);
        g.setOutputs(x);
        Graph s = run(new DeadCodeElimination(), g);
        assertEquals(1, count(s, OpKind.CUSTOM));
        assertEquals(1, count(s, OpKind.UNARY), "what the impure op reads is kept too");
    }

    // ---------------------------------------------------------------- constant folding

    @Test
    void fold_constantSubgraph_isEvaluatedOnceAndReplaced() {
        Graph g = new Graph("f");
        Value x = g.input("x", Shape.of(DType.F32, 2));
        Value k = g.mul(g.add(g.constant(new float[] {1, 2}, 2), g.scalar(3f)), g.scalar(2f)); // (c + 3) * 2
        g.setOutputs(g.add(x, k));
        List<Graph> evaluated = new ArrayList<>();
        ConstantEvaluator eval = (sub, plan) -> {
            evaluated.add(sub);
            return List.of(Tensor.of(new float[] {8, 10}, 2));
        };
        Graph s = run(new DeadCodeElimination(), run(new ConstantFolding(eval), g));
        assertEquals(1, evaluated.size(), "one evaluation for the whole constant subgraph");
        assertEquals(1, evaluated.get(0).outputs().size(), "only the value the graph needs");
        assertTrue(s.size() < g.size(), s.toString());
        Node add = s.nodes().stream().filter(n -> n.kind() == OpKind.BINARY).findFirst().orElseThrow();
        assertEquals(Tensor.of(new float[] {8, 10}, 2), ((Op.Constant) add.inputs().get(1).node().op()).value());
    }

    @Test
    void fold_leavesImpureAndLargeBroadcastsAlone() {
        Graph g = new Graph("f2");
        Value big = g.expand(g.scalar(1f), 1024, 1024);  // 4 MiB from 4 bytes: left to run time
        Value imp = g.custom("rand", Attrs.EMPTY, List.of(Shape.of(DType.F32, 2)), g.scalar(1f)).get(0);
        g.setOutputs(big, g.exp(imp));
        ConstantEvaluator never = (sub, plan) -> {
            throw new AssertionError("nothing should be folded: " + sub);
        };
        assertSame(g, new ConstantFolding(never).apply(g));
    }

    // ---------------------------------------------------------------- fusion

    @Test
    void addNormFusion_keepsTheSumForTheResidualStream() {
        Graph g = new Graph("an");
        Value x = g.input("x", X);
        Value r = g.input("r", X);
        Value gamma = g.param("g", Shape.of(DType.F32, 8));
        Value s = g.add(x, r);
        Value n = g.rmsNorm(s, gamma, 1e-6f);
        g.setOutputs(g.add(s, g.exp(n)));
        Graph f = run(new AddNormFusion(), g);
        assertEquals(1, count(f, OpKind.ADD_NORM));
        assertEquals(0, count(f, OpKind.RMS_NORM));
        assertEquals(1, count(f, OpKind.BINARY), "only the final add remains: the first became AddNorm's sum");
        assertTrue(f.size() < g.size());
    }

    @Test
    void elementwiseFusion_chainBecomesOneKernel_andMatmulAbsorbsItsEpilogue() {
        Graph g = new Graph("ew");
        Value x = g.input("x", X);
        Value w = g.param("w", Shape.of(DType.F32, 8, 16));
        Value b = g.param("b", Shape.of(DType.F32, 16));
        Value h = g.gelu(g.add(g.matmul(x, w), b));                          // matmul + bias + activation
        Value y = g.mul(g.sigmoid(g.sub(x, g.scalar(1f))), g.scalar(3f));    // a separate chain of three
        g.setOutputs(h, y);
        Graph f = run(new ElementwiseFusion(Capabilities.all()), g);
        assertEquals(1, count(f, OpKind.FUSED_MATMUL), f.toString());
        assertEquals(0, count(f, OpKind.MATMUL));
        assertEquals(1, count(f, OpKind.FUSED), f.toString());
        assertEquals(0, count(f, OpKind.UNARY) + count(f, OpKind.BINARY), f.toString());
        Op.FusedMatMul fmm = (Op.FusedMatMul) f.nodes().stream().filter(n -> n.kind() == OpKind.FUSED_MATMUL)
                .findFirst().orElseThrow().op();
        assertEquals("gelu(add(in0, in1))", fmm.epilogue().toString());
    }

    @Test
    void elementwiseFusion_respectsSharedIntermediatesAndBackendSupport() {
        Graph g = new Graph("sh");
        Value x = g.input("x", X);
        Value t = g.exp(x);
        g.setOutputs(g.add(t, g.scalar(1f)), g.mul(t, g.scalar(2f))); // t is used twice: not inside either chain
        Graph f = run(new ElementwiseFusion(Capabilities.all()), g);
        assertEquals(0, count(f, OpKind.FUSED), "single-op chains are not worth a fused kernel");
        Graph none = new ElementwiseFusion(Capabilities.ofKinds(EnumSet.complementOf(EnumSet.of(OpKind.FUSED, OpKind.FUSED_MATMUL)))).apply(g);
        assertSame(g, none);
    }

    @Test
    void elementwiseFusion_whereWithItsComparison_becomesMaskSteps() {
        Graph g = new Graph("mask");
        Value x = g.input("x", X);
        Value leaky = g.where(g.lt(x, g.scalar(0f)), g.mul(x, g.scalar(0.1f)), x);
        g.setOutputs(g.add(leaky, g.scalar(1f)));
        Graph f = run(new ElementwiseFusion(Capabilities.all()), g);
        assertEquals(1, count(f, OpKind.FUSED), f.toString());
        assertEquals(0, count(f, OpKind.COMPARE) + count(f, OpKind.WHERE) + count(f, OpKind.BINARY), f.toString());
        Op.Fused fused = (Op.Fused) f.nodes().stream().filter(n -> n.kind() == OpKind.FUSED).findFirst().orElseThrow().op();
        assertEquals("add(where(lt(in0, in1), mul(in0, in2), in0), in3)", fused.program().toString());
    }

    @Test
    void elementwiseFusion_sharedOrNonF32Comparison_keepsTheWhere() {
        Graph g = new Graph("shared");
        Value x = g.input("x", X);
        Value m = g.gt(x, g.scalar(0f));
        Value i = g.input("i", Shape.of(DType.I32, 4, 8));
        Value byInt = g.where(g.gt(i, g.scalar(DType.I32, 0)), g.exp(x), x); // an i32 comparison is no f32 step
        g.setOutputs(g.where(m, g.exp(x), x), g.cast(m, DType.F32), byInt);
        Graph f = run(new ElementwiseFusion(Capabilities.all()), g);
        assertEquals(2, count(f, OpKind.WHERE), f.toString());
        assertEquals(2, count(f, OpKind.COMPARE), f.toString());
    }

    @Test
    void elementwiseFusion_skipsNonF32() {
        Graph g = new Graph("i");
        Value x = g.input("x", Shape.of(DType.I32, 4));
        g.setOutputs(g.abs(g.neg(g.add(x, g.scalar(DType.I32, 1)))));
        assertSame(g, new ElementwiseFusion(Capabilities.all()).apply(g));
    }

    // ---------------------------------------------------------------- precision

    @Test
    void precisionF16_storesHalf_keepsTheEdgesAndIntegersAsDeclared() {
        Graph g = new Graph("p");
        Value x = g.input("x", X);
        Value idx = g.input("idx", Shape.of(DType.I64, 3));
        Value w = g.param("w", Shape.of(DType.F32, 8, 8));
        Value d = g.input("d", Shape.of(DType.F64, 2));
        Value y = g.gather(g.matmul(x, w), idx, 0);
        g.setOutputs(y, g.cast(idx, DType.F32), g.exp(d));
        Graph p = run(new PrecisionRewrite(PrecisionPolicy.F16), g);
        assertEquals(Shape.of(DType.F16, 8, 8), p.param("w").shape(), "weights stored in half");
        assertEquals(DType.F32, p.input("x").dtype(), "the input keeps its declared type");
        assertEquals(DType.I64, p.input("idx").dtype());
        assertEquals(List.of(DType.F32, DType.F32, DType.F64), p.outputs().stream().map(Value::dtype).toList());
        Node mm = p.nodes().stream().filter(n -> n.kind() == OpKind.MATMUL).findFirst().orElseThrow();
        assertEquals(DType.F16, mm.shape().dtype(), "activations in half");
        Node exp = p.nodes().stream().filter(n -> n.op() instanceof Op.Unary u && u.op() == UnaryKind.EXP)
                .findFirst().orElseThrow();
        assertEquals(DType.F64, exp.shape().dtype(), "f64 is never re-typed");
    }

    @Test
    void precisionAmp_onlyComputeOpsGoHalf() {
        Graph g = new Graph("amp");
        Value x = g.input("x", X);
        Value w = g.param("w", Shape.of(DType.F32, 8, 8));
        Value gamma = g.param("g", Shape.of(DType.F32, 8));
        Value h = g.matmul(x, w);
        Value y = g.add(x, g.softmax(g.rmsNorm(h, gamma, 1e-5f), -1)); // residual stream stays f32
        g.setOutputs(y);
        Graph p = run(new PrecisionRewrite(PrecisionPolicy.AMP), g);
        assertEquals(DType.F16, p.param("w").dtype(), "a weight only matmul reads is stored in half");
        assertEquals(DType.F32, p.param("g").dtype(), "norm weights stay f32");
        for (Node n : p.nodes()) {
            if (n.kind() == OpKind.MATMUL) {
                assertEquals(DType.F16, n.shape().dtype());
            } else if (n.kind() == OpKind.RMS_NORM || n.kind() == OpKind.SOFTMAX || n.kind() == OpKind.BINARY) {
                assertEquals(DType.F32, n.shape().dtype(), n.describe());
            }
        }
        assertEquals(2, count(p, OpKind.CAST), "x to half on entry to the matmul, its result back to f32");
    }

    @Test
    void precisionF32_isANoOp() {
        Graph g = new Graph("n");
        g.setOutputs(g.exp(g.input("x", X)));
        assertSame(g, new PrecisionRewrite(PrecisionPolicy.F32).apply(g));
    }

    // ---------------------------------------------------------------- in-place planning

    @Test
    void inPlace_elementwiseChainReusesOneBuffer() {
        Graph g = new Graph("ip");
        Value x = g.input("x", Shape.of(DType.F32, 1024));
        Value a = g.exp(x);
        Value b = g.mul(a, g.scalar(2f));
        Value c = g.sigmoid(b);
        g.setOutputs(g.add(c, g.scalar(1f)));
        MemoryPlan plain = MemoryPlanner.plan(g, 64, false);
        MemoryPlan inPlace = MemoryPlanner.plan(g, 64, true);
        assertTrue(inPlace.arenaBytes() < plain.arenaBytes(), plain.report() + "\n" + inPlace.report());
        assertEquals(inPlace.slot(a).offset(), inPlace.slot(c).offset(), "b and c overwrite a's buffer");
        assertTrue(!inPlace.slot(b).view(), "an in-place result is computed, not a view");
        // the input is never overwritten
        assertTrue(inPlace.slot(x).offset() != inPlace.slot(a).offset());
    }

    @Test
    void inPlace_notWhenTheOperandIsReadLaterOrBroadcast() {
        Graph g = new Graph("ip2");
        Value x = g.input("x", Shape.of(DType.F32, 4, 8));
        Value a = g.exp(x);
        Value b = g.neg(a);                               // a is read again below: no reuse
        Value row = g.exp(g.input("r", Shape.of(DType.F32, 8)));
        Value c = g.add(b, row);                          // row broadcasts: never its buffer
        g.setOutputs(g.add(c, a));
        MemoryPlan p = MemoryPlanner.plan(g, 64, true);
        assertTrue(p.slot(b).offset() != p.slot(a).offset());
        assertTrue(p.slot(c).offset() != p.slot(row).offset());
    }
}
