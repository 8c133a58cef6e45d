package dev.rlx.opt.decompose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.Primitives;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What {@link Decompose} does to a graph's structure: which nodes it rewrites, into what, and what it keeps. */
class DecomposeTest {
    private static final Capabilities PRIMITIVES = Capabilities.primitives();

    static Stream<Arguments> composites() {
        return cases(DType.F32, DType.F64, DType.F16, DType.BF16);
    }

    static Stream<Arguments> halfComposites() {
        return cases(DType.F16, DType.BF16);
    }

    private static Stream<Arguments> cases(DType... types) {
        return Stream.of(types)
                .flatMap(t -> CompositeGraphs.all(t).stream().map(g -> Arguments.of(t.label() + " " + g.name(), g)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("composites")
    void primitives_everyCompositeBecomesPrimitive_withTheGraphsInterfaceKept(String name, Graph g) {
        Graph out = new Decompose(PRIMITIVES).apply(g);
        assertNotSame(g, out, name + " has a composite to rewrite");
        out.verify();
        for (Node n : out.nodes()) {
            assertTrue(Primitives.isPrimitive(n.op()), name + ": " + n.describe() + " is left in\n" + out);
        }
        assertEquals(g.inputShapes(), out.inputShapes(), name + " inputs");
        assertEquals(names(g.inputs(), g), names(out.inputs(), out), name + " input names");
        assertEquals(g.params().stream().map(Value::shape).toList(), out.params().stream().map(Value::shape).toList());
        assertEquals(names(g.params(), g), names(out.params(), out), name + " param names");
        assertEquals(g.outputShapes(), out.outputShapes(), name + " output shapes and dtypes");
        assertEquals("out", out.nameOf(out.outputs().get(0)), name + ": the composite's display name moves to its result");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("halfComposites")
    void primitives_halfData_isComputedInF32AndRoundedOnceAtTheOutput(String name, Graph g) {
        DType t = g.inputs().get(0).dtype();
        Graph out = new Decompose(PRIMITIVES).apply(g);
        for (Node n : out.nodes()) {
            boolean allowedHalf = n.kind() == OpKind.INPUT || n.kind() == OpKind.PARAM || n.kind() == OpKind.CAST
                    || OpKind.MOVEMENT.contains(n.kind());
            if (n.outputs().get(0).dtype() == t) {
                assertTrue(allowedHalf, name + ": " + n.describe() + " computes in " + t.label() + "\n" + out);
            }
        }
    }

    @Test
    void allClaimed_returnsTheSameGraph() {
        Graph g = CompositeGraphs.attention(DType.F32, Op.Attention.of(4, 2, 3).causal(), false, 5, 7, DType.BOOL);
        assertSame(g, new Decompose(Capabilities.all()).apply(g));
    }

    @Test
    void refusedWithoutDecomposition_isLeftAsItIs() {
        Graph g = new Graph("conv");
        Value x = g.input("x", Shape.of(DType.F32, 1, 2, 5, 5));
        Value w = g.param("w", Shape.of(DType.F32, 3, 2, 3, 3));
        g.setOutputs(g.conv2d(x, w, null, 1, 1, 1, 1));
        Capabilities noConv = Capabilities.builder().claim(OpKind.INPUT).claim(OpKind.PARAM).build();
        assertSame(g, new Decompose(noConv).apply(g));
    }

    @Test
    void targetClaimingSoftmax_keepsTheSoftmaxAttentionDecomposesInto() {
        Graph g = CompositeGraphs.attention(DType.F32, Op.Attention.of(4, 2, 3), false, 5, 7, null);
        Capabilities withSoftmax = Capabilities.builder().claimPrimitives().claim(OpKind.SOFTMAX).build();
        Graph out = new Decompose(withSoftmax).apply(g);
        assertEquals(0, count(out, OpKind.ATTENTION));
        assertEquals(1, count(out, OpKind.SOFTMAX));
        assertEquals(0, count(out, OpKind.REDUCE), "the softmax stays whole\n" + out);
    }

    @Test
    void targetClaimingAComposite_keepsIt() {
        Graph g = CompositeGraphs.norm(DType.F32, "ln", false, 1, true);
        Capabilities withNorm = Capabilities.builder().claimPrimitives().claim(OpKind.LAYER_NORM).build();
        assertSame(g, new Decompose(withNorm).apply(g));
    }

    @Test
    void nestedComposites_decomposeToAFixpoint() {
        // add-norm -> layer norm -> reductions; fused -> gelu -> erf; attention -> softmax -> reductions
        for (Graph g : List.of(CompositeGraphs.addNorm(DType.F32, false, 2, true), CompositeGraphs.fused(DType.F32),
                CompositeGraphs.attention(DType.F16, Op.Attention.of(4, 2, 3).causal(), true, 7, 5, DType.BOOL))) {
            Graph out = new Decompose(PRIMITIVES).apply(g);
            assertTrue(out.nodes().stream().allMatch(n -> Primitives.isPrimitive(n.op())), g.name() + "\n" + out);
            assertSame(out, new Decompose(PRIMITIVES).apply(out), g.name() + ": a second run finds nothing to do");
        }
    }

    @Test
    void plainMatMulTarget_getsExplicitTransposes() {
        Capabilities plainOnly = Capabilities.builder().claimPrimitives().refuse(OpKind.MATMUL, "plain matmul only",
                (op, in) -> op instanceof Op.MatMul m && (m.transA() || m.transB()) ? "no transposed matmul" : null)
                .build();
        for (Graph g : List.of(CompositeGraphs.fusedMatMul(DType.F32, true, true),
                CompositeGraphs.attention(DType.F32, Op.Attention.of(2, 2, 3).withLayout(HeadLayout.BHSD), false, 5, 7,
                        null))) {
            Graph out = new Decompose(plainOnly).apply(g);
            out.verify();
            for (Node n : out.nodes()) {
                assertTrue(plainOnly.claims(n), g.name() + ": " + n.describe() + " is refused\n" + out);
            }
            assertTrue(count(out, OpKind.TRANSPOSE) >= 1, g.name() + "\n" + out);
        }
    }

    @Test
    void transposedMatMul_claimedByPrimitives_isKept() {
        Graph g = new Graph("mm");
        Value a = g.input("a", Shape.of(DType.F32, 3, 4));
        Value b = g.input("b", Shape.of(DType.F32, 5, 4));
        g.setOutputs(g.apply1(new Op.MatMul(false, true), a, b));
        assertSame(g, new Decompose(PRIMITIVES).apply(g));
    }

    @Test
    void halfFallback_runsARefusedHalfPrimitiveInF32BetweenCasts() {
        Capabilities f32MatMul = primitivesWith(OpKind.MATMUL, DType.F32);
        Graph g = new Graph("mm");
        Value a = g.input("a", Shape.of(DType.F16, 3, 4));
        Value b = g.param("b", Shape.of(DType.F16, 4, 5));
        g.setOutputs(g.name(g.matmul(a, b), "mm"));
        Graph out = new Decompose(f32MatMul).apply(g);
        out.verify();
        Node mm = only(out, OpKind.MATMUL);
        assertEquals(DType.F32, mm.output().dtype());
        assertEquals(List.of(OpKind.CAST, OpKind.CAST), mm.inputs().stream().map(v -> v.node().kind()).toList());
        Value y = out.outputs().get(0);
        assertEquals(Shape.of(DType.F16, 3, 5), y.shape());
        assertEquals(OpKind.CAST, y.node().kind());
        assertEquals(mm.output(), y.node().inputs().get(0));
        assertEquals("mm", out.nameOf(y));
    }

    @Test
    void halfFallback_castsAnOperandReadTwiceOnce_andLeavesOtherDtypesAlone() {
        Capabilities f32Only = primitivesWith(OpKind.BINARY, DType.F32);
        Graph g = new Graph("square");
        Value x = g.input("x", Shape.of(DType.BF16, 3));
        g.setOutputs(g.mul(x, x));
        Graph out = new Decompose(f32Only).apply(g);
        assertEquals(2, count(out, OpKind.CAST), "one cast in, one out\n" + out);

        Graph gather = new Graph("gather");
        Value data = gather.input("data", Shape.of(DType.F16, 4, 3));
        Value idx = gather.input("idx", Shape.of(DType.I64, 2));
        gather.setOutputs(gather.gather(data, idx, 0));
        Graph outG = new Decompose(primitivesWith(OpKind.GATHER, DType.F32)).apply(gather);
        Node gn = only(outG, OpKind.GATHER);
        assertEquals(DType.I64, gn.inputs().get(1).dtype());
        assertEquals(OpKind.INPUT, gn.inputs().get(1).node().kind(), "indices are not cast");
    }

    @Test
    void halfFallback_notTakenWhenTheF32FormIsRefusedToo() {
        Capabilities noHalfMatMul = primitivesWith(OpKind.MATMUL, DType.F64);
        Graph g = new Graph("mm");
        Value a = g.input("a", Shape.of(DType.F16, 3, 4));
        g.setOutputs(g.matmul(a, g.param("b", Shape.of(DType.F16, 4, 5))));
        assertSame(g, new Decompose(noHalfMatMul).apply(g));
    }

    @Test
    void halfComposite_withoutCasts_decomposesInItsOwnDtype() {
        Capabilities noCasts = Capabilities.builder().claimPrimitives()
                .refuse(OpKind.CAST, "no casts", (op, in) -> "no cast kernel").build();
        Graph g = CompositeGraphs.unaryOn(DType.F16, "softmax", x -> x.graph().softmax(x, 1), 3, 5);
        Graph out = new Decompose(noCasts).apply(g);
        assertEquals(0, count(out, OpKind.CAST));
        assertEquals(0, count(out, OpKind.SOFTMAX));
        assertTrue(out.nodes().stream().allMatch(n -> n.outputs().get(0).dtype() == DType.F16), out.toString());
    }

    @Test
    void halfAttention_keepsABoolMaskAsItIs() {
        Graph g = CompositeGraphs.attention(DType.BF16, Op.Attention.of(4, 2, 3), false, 5, 7, DType.BOOL);
        Graph out = new Decompose(PRIMITIVES).apply(g);
        Value mask = out.input("mask");
        for (Node n : out.nodes()) {
            if (n.inputs().contains(mask)) {
                assertFalse(n.kind() == OpKind.CAST, "the BOOL mask is not widened\n" + out);
            }
        }
    }

    @Test
    void controlFlowBodies_areNotEntered() {
        Graph body = new Graph("then");
        Value bx = body.input("x", Shape.of(DType.F32, 3, 5));
        body.setOutputs(body.softmax(bx, 1));
        Graph g = new Graph("if");
        Value p = g.input("p", Shape.of(DType.BOOL));
        Value x = g.input("x", Shape.of(DType.F32, 3, 5));
        g.setOutputs(g.ifElse(p, body, body, x));
        Graph out = new Decompose(PRIMITIVES).apply(g);
        assertSame(g, out);
        assertEquals(1, count(((Op.If) only(out, OpKind.IF).op()).thenBranch(), OpKind.SOFTMAX));
    }

    @Test
    void fusedProgram_dependingOnFewerOperands_isExpandedToTheOpsShape() {
        Graph g = new Graph("fused_narrow");
        Value x = g.input("x", Shape.of(DType.F32, 5));
        Value y = g.input("y", Shape.of(DType.F32, 3, 5));
        ElementwiseProgram p = ElementwiseProgram.builder(2).unary(UnaryKind.RELU, 0).build();
        g.setOutputs(g.apply1(new Op.Fused(p), x, y));
        Graph out = new Decompose(PRIMITIVES).apply(g);
        assertEquals(Shape.of(DType.F32, 3, 5), out.outputs().get(0).shape());
        assertEquals(OpKind.EXPAND, out.outputs().get(0).node().kind());
    }

    @Test
    void fullyMaskableAttention_zeroesEmptyRows_andUnmaskedAttentionDoesNot() {
        Graph masked = new Decompose(PRIMITIVES).apply(
                CompositeGraphs.attention(DType.F32, Op.Attention.of(4, 2, 3), false, 5, 7, DType.F32));
        Graph causalLongQuery = new Decompose(PRIMITIVES).apply(
                CompositeGraphs.attention(DType.F32, Op.Attention.of(4, 2, 3).causal(), false, 7, 5, null));
        Graph causal = new Decompose(PRIMITIVES).apply(
                CompositeGraphs.attention(DType.F32, Op.Attention.of(4, 2, 3).causal(), false, 5, 7, null));
        assertTrue(zeroesEmptyRows(masked), "a mask can empty a row\n" + masked);
        assertTrue(zeroesEmptyRows(causalLongQuery), "Sq > Sk: the first rows see no key\n" + causalLongQuery);
        assertFalse(zeroesEmptyRows(causal), "every row sees a key\n" + causal);
    }

    /** Whether {@code g} has a where choosing by a comparison (the empty-row test), not by a constant mask. */
    private static boolean zeroesEmptyRows(Graph g) {
        return g.nodes().stream().anyMatch(n -> n.kind() == OpKind.WHERE
                && n.inputs().get(0).node().kind() == OpKind.COMPARE);
    }

    /** Claims the primitives, {@code kind} only for {@code dtype}. */
    private static Capabilities primitivesWith(OpKind kind, DType dtype) {
        Capabilities.Builder b = Capabilities.builder();
        for (OpKind k : Primitives.KINDS) {
            if (k != kind) {
                b.claim(k);
            }
        }
        return b.claim(kind, dtype).build();
    }

    private static List<String> names(List<Value> vs, Graph g) {
        return vs.stream().map(g::nameOf).toList();
    }

    private static long count(Graph g, OpKind kind) {
        return g.nodes().stream().filter(n -> n.kind() == kind).count();
    }

    private static Node only(Graph g, OpKind kind) {
        List<Node> ns = g.nodes().stream().filter(n -> n.kind() == kind).toList();
        assertEquals(1, ns.size(), kind + " nodes in\n" + g);
        return ns.get(0);
    }
}
