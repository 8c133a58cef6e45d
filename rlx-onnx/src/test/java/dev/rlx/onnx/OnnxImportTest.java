package dev.rlx.onnx;

import static dev.rlx.onnx.OnnxModelBuilder.attrGraph;
import static dev.rlx.onnx.OnnxModelBuilder.attrInt;
import static dev.rlx.onnx.OnnxModelBuilder.attrInts;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Import behaviour: weights, symbolic dims, import-time values, per-opset rules, control flow. */
class OnnxImportTest {
    static final int FLOAT = 1;
    static final int INT64 = 7;
    static final int BOOL = 9;
    static Session session;

    @BeforeAll
    static void open() {
        session = new Session(Device.CPU);
    }

    @AfterAll
    static void close() {
        session.close();
    }

    static float[] random(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() + 0.1);
        }
        return v;
    }

    static Map<String, Tensor> run(byte[] model, Map<String, Tensor> in) {
        try (OnnxRunner r = new OnnxRunner(OnnxModel.parse(model, null), session)) {
            return r.run(in);
        }
    }

    static void assertClose(double[] expected, float[] actual, double tol) {
        assertEquals(expected.length, actual.length, "element count");
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], tol * (1 + Math.abs(expected[i])), "element " + i);
        }
    }

    /* ---- weights ---- */

    @Test
    void import_largeFloatInitializersBecomeParams_andResultsMatchReference() {
        Random r = new Random(7);
        float[] w = random(r, 3 * 71);
        float[] x = random(r, 5 * 3);
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 5, 3).output("y", FLOAT, 5, 71)
                .initializer("W", Tensor.of(w, 3, 71))
                .node("MatMul", List.of("x", "W"), List.of("y"));
        OnnxGraph ig = OnnxModel.parse(b.build(), null).importGraph(OnnxBinding.none());
        assertEquals(List.of("W"), List.copyOf(ig.weights().keySet()));
        assertEquals(1, ig.graph().params().size());
        double[] ref = new double[5 * 71];
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < 71; j++) {
                for (int k = 0; k < 3; k++) {
                    ref[i * 71 + j] += (double) x[i * 3 + k] * w[k * 71 + j];
                }
            }
        }
        float[] y = run(b.build(), Map.of("x", Tensor.of(x, 5, 3))).get("y").toFloatArray();
        assertClose(ref, y, 1e-5);
    }

    /* ---- symbolic dims ---- */

    static byte[] addBias() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, "batch", 3).output("y", FLOAT, "batch", 3)
                .initializer("bias", Tensor.of(new float[] {1, 2, 3}, 3))
                .node("Add", List.of("x", "bias"), List.of("y"));
        return b.build();
    }

    @Test
    void symbolicDim_boundFromInputShape_newShapeRecompiles() {
        try (OnnxRunner r = new OnnxRunner(OnnxModel.parse(addBias(), null), session)) {
            float[] y2 = r.run(Map.of("x", Tensor.of(new float[] {0, 0, 0, 1, 1, 1}, 2, 3))).get("y").toFloatArray();
            assertArrayEquals(new float[] {1, 2, 3, 2, 3, 4}, y2);
            Tensor y3 = r.run(Map.of("x", Tensor.of(new float[9], 3, 3))).get("y");
            assertEquals(Shape.of(DType.F32, 3, 3), y3.shape());
            assertEquals(2, r.compiledVariants());
            r.run(Map.of("x", Tensor.of(new float[6], 2, 3)));
            assertEquals(2, r.compiledVariants(), "a shape seen before reuses its compiled graph");
        }
    }

    @Test
    void symbolicDim_explicitBinding_setsInputShape() {
        OnnxGraph ig = OnnxModel.parse(addBias(), null).importGraph(OnnxBinding.none().withDim("batch", 4));
        assertEquals(Shape.of(DType.F32, 4, 3), ig.graph().input("x").shape());
    }

    @Test
    void symbolicDim_unbound_errorNamesSymbolAndInput() {
        var e = assertThrows(OnnxImportException.class,
                () -> OnnxModel.parse(addBias(), null).importGraph(OnnxBinding.none()));
        assertTrue(e.getMessage().contains("'batch'") && e.getMessage().contains("'x'"), e.getMessage());
    }

    @Test
    void symbolicDim_boundTwiceDifferently_isRejected() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("a", FLOAT, "n").input("b", FLOAT, "n").output("y", FLOAT, "n")
                .node("Add", List.of("a", "b"), List.of("y"));
        var binding = OnnxBinding.none().withShape("a", Shape.of(DType.F32, 2)).withShape("b", Shape.of(DType.F32, 3));
        var e = assertThrows(OnnxImportException.class, () -> OnnxModel.parse(b.build(), null).importGraph(binding));
        assertTrue(e.getMessage().contains("'n'"), e.getMessage());
    }

    /* ---- values needed at import time ---- */

    static byte[] reshape() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 2, 3).input("shape", INT64, 2).output("y", FLOAT)
                .node("Reshape", List.of("x", "shape"), List.of("y"));
        return b.build();
    }

    @Test
    void reshape_shapeInputBoundByValue_isFrozenAndNewValueReimports() {
        OnnxGraph ig = OnnxModel.parse(reshape(), null).importGraph(OnnxBinding.none()
                .withShape("x", Shape.of(DType.F32, 2, 3)).withValue("shape", Tensor.of(new long[] {3, 2}, 2)));
        assertEquals(List.of("shape"), List.copyOf(ig.frozenInputs().keySet()));
        try (OnnxRunner r = new OnnxRunner(OnnxModel.parse(reshape(), null), session)) {
            Tensor x = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
            assertEquals(Shape.of(DType.F32, 3, 2), r.run(Map.of("x", x, "shape", Tensor.of(new long[] {3, 2}, 2)))
                    .get("y").shape());
            assertEquals(Shape.of(DType.F32, 6, 1), r.run(Map.of("x", x, "shape", Tensor.of(new long[] {-1, 1}, 2)))
                    .get("y").shape());
            assertEquals(2, r.compiledVariants());
        }
    }

    @Test
    void reshape_shapeInputNotBound_errorNamesNodeAndInput() {
        var e = assertThrows(OnnxImportException.class, () -> OnnxModel.parse(reshape(), null).importGraph(
                OnnxBinding.none().withShape("x", Shape.of(DType.F32, 2, 3))));
        assertTrue(e.getMessage().contains("Reshape") && e.getMessage().contains("'shape'"), e.getMessage());
    }

    /* ---- per-opset rules ---- */

    static float[] softmax(long opset, float[] x) {
        OnnxModelBuilder b = new OnnxModelBuilder(opset);
        b.graph().input("x", FLOAT, 2, 3, 4).output("y", FLOAT, 2, 3, 4)
                .node("Softmax", List.of("x"), List.of("y"), attrInt("axis", 1));
        return run(b.build(), Map.of("x", Tensor.of(x, 2, 3, 4))).get("y").toFloatArray();
    }

    /** Softmax of each group of {@code len} consecutive elements, {@code stride} apart. */
    static double[] softmaxRef(float[] x, int groups, int len, int stride, int blockSize) {
        double[] out = new double[x.length];
        for (int g = 0; g < groups; g++) {
            int base = (g / stride) * blockSize + g % stride;
            double sum = 0;
            for (int i = 0; i < len; i++) {
                sum += Math.exp(x[base + i * stride]);
            }
            for (int i = 0; i < len; i++) {
                out[base + i * stride] = Math.exp(x[base + i * stride]) / sum;
            }
        }
        return out;
    }

    @Test
    void softmax_beforeOpset13_flattensFromAxis_fromOpset13_usesOneAxis() {
        float[] x = random(new Random(3), 24);
        // opset 11: rows of 12 (axis 1 onward flattened); opset 13: along axis 1 (3 elements, stride 4).
        assertClose(softmaxRef(x, 2, 12, 1, 12), softmax(11, x), 1e-5);
        assertClose(softmaxRef(x, 8, 3, 4, 12), softmax(13, x), 1e-5);
    }

    @Test
    void reduceSum_axesAttributeBeforeOpset13_inputFrom13() {
        float[] x = {1, 2, 3, 4, 5, 6};
        OnnxModelBuilder old = new OnnxModelBuilder(11);
        old.graph().input("x", FLOAT, 2, 3).output("y", FLOAT, 2, 1)
                .node("ReduceSum", List.of("x"), List.of("y"), attrInts("axes", 1));
        assertArrayEquals(new float[] {6, 15}, run(old.build(), Map.of("x", Tensor.of(x, 2, 3))).get("y").toFloatArray());
        OnnxModelBuilder now = new OnnxModelBuilder(13);
        now.graph().input("x", FLOAT, 2, 3).output("y", FLOAT, 1, 3)
                .initializer("axes", Tensor.of(new long[] {0}, 1))
                .node("ReduceSum", List.of("x", "axes"), List.of("y"));
        assertArrayEquals(new float[] {5, 7, 9}, run(now.build(), Map.of("x", Tensor.of(x, 2, 3))).get("y").toFloatArray());
    }

    @Test
    void add_legacyBroadcastWithAxis_beforeOpset7() {
        OnnxModelBuilder b = new OnnxModelBuilder(6);
        b.graph().input("x", FLOAT, 2, 3, 2).input("c", FLOAT, 3).output("y", FLOAT, 2, 3, 2)
                .node("Add", List.of("x", "c"), List.of("y"), attrInt("broadcast", 1), attrInt("axis", 1));
        float[] y = run(b.build(), Map.of("x", Tensor.of(new float[12], 2, 3, 2), "c",
                Tensor.of(new float[] {1, 2, 3}, 3))).get("y").toFloatArray();
        assertArrayEquals(new float[] {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}, y);
    }

    /* ---- control flow ---- */

    @Test
    void loop_tripCountUnknownAtImport_runsAsIrWhile() {
        OnnxModelBuilder.Graph body = new OnnxModelBuilder.Graph("body")
                .input("i", INT64).input("cond", BOOL).input("v", FLOAT, 2)
                .output("cond_out", BOOL).output("v_out", FLOAT, 2)
                .initializer("two", Tensor.of(new float[] {2, 2}, 2))
                .node("Identity", List.of("cond"), List.of("cond_out"))
                .node("Mul", List.of("v", "two"), List.of("v_out"));
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("m", INT64).input("v0", FLOAT, 2).output("v", FLOAT, 2)
                .node("Loop", List.of("m", "", "v0"), List.of("v"), attrGraph("body", body));
        OnnxGraph ig = OnnxModel.parse(b.build(), null).importGraph(OnnxBinding.none());
        assertTrue(ig.graph().nodes().stream().anyMatch(n -> n.kind() == OpKind.WHILE), ig.graph().toString());
        try (CompiledGraph c = ig.compile(session)) {
            c.setInput("m", new long[] {5});
            c.setInput("v0", new float[] {1, -3});
            c.run();
            assertArrayEquals(new float[] {32, -96}, c.output(0).toFloatArray());
        }
    }

    static byte[] ifOnPredicateInput() {
        OnnxModelBuilder.Graph then = new OnnxModelBuilder.Graph("then").output("t", FLOAT, 2)
                .node("Add", List.of("a", "b"), List.of("t"));
        OnnxModelBuilder.Graph other = new OnnxModelBuilder.Graph("else").output("e", FLOAT, 2)
                .node("Sub", List.of("a", "b"), List.of("e"));
        OnnxModelBuilder m = new OnnxModelBuilder(13);
        m.graph().input("p", BOOL).input("a", FLOAT, 2).input("b", FLOAT, 2).output("y", FLOAT, 2)
                .node("If", List.of("p"), List.of("y"), attrGraph("then_branch", then), attrGraph("else_branch", other));
        return m.build();
    }

    @Test
    void if_predicateGivenAtImport_foldsAndIsFrozen_eachValueItsOwnVariant() {
        Tensor a = Tensor.of(new float[] {5, 7}, 2);
        Tensor bb = Tensor.of(new float[] {1, 2}, 2);
        try (OnnxRunner r = new OnnxRunner(OnnxModel.parse(ifOnPredicateInput(), null), session)) {
            assertArrayEquals(new float[] {6, 9}, r.run(Map.of("p", Tensor.of(new boolean[] {true}), "a", a, "b", bb))
                    .get("y").toFloatArray());
            assertArrayEquals(new float[] {4, 5}, r.run(Map.of("p", Tensor.of(new boolean[] {false}), "a", a, "b", bb))
                    .get("y").toFloatArray());
            assertArrayEquals(new float[] {6, 9}, r.run(Map.of("p", Tensor.of(new boolean[] {true}), "a", a, "b", bb))
                    .get("y").toFloatArray());
            assertEquals(2, r.compiledVariants(), "one variant per predicate value, reused");
        }
        OnnxGraph ig = OnnxModel.parse(ifOnPredicateInput(), null).importGraph(OnnxBinding.of(Map.of(
                "p", Tensor.of(new boolean[] {false}), "a", a, "b", bb)));
        assertEquals(List.of("p"), List.copyOf(ig.frozenInputs().keySet()));
        assertTrue(ig.graph().nodes().stream().noneMatch(n -> n.kind() == OpKind.IF), ig.graph().toString());
    }

    @Test
    void if_predicateNotBoundByValue_staysARunTimeChoice() {
        OnnxGraph ig = OnnxModel.parse(ifOnPredicateInput(), null).importGraph(OnnxBinding.none()
                .withShape("p", Shape.of(DType.BOOL)).withShape("a", Shape.of(DType.F32, 2)).withShape("b", Shape.of(DType.F32, 2)));
        assertTrue(ig.graph().nodes().stream().anyMatch(n -> n.kind() == OpKind.IF), ig.graph().toString());
        assertTrue(ig.frozenInputs().isEmpty());
        try (CompiledGraph c = ig.compile(session)) {
            c.setInput("a", new float[] {5, 7});
            c.setInput("b", new float[] {1, 2});
            c.setInput("p", new boolean[] {true});
            c.run();
            assertArrayEquals(new float[] {6, 9}, c.output(0).toFloatArray());
            c.setInput("p", new boolean[] {false});
            c.run();
            assertArrayEquals(new float[] {4, 5}, c.output(0).toFloatArray());
        }
    }

    /**
     * Silero VAD's pattern: {@code If(Equal(sr, 16000))} on a scalar sample-rate input, whose untaken branch
     * reshapes the audio to shapes that cannot hold for the frame given (there, an LSTM receiving a 5-D input).
     */
    static byte[] ifOnSampleRate() {
        OnnxModelBuilder.Graph then = new OnnxModelBuilder.Graph("then").output("t", FLOAT, 2, 3)
                .node("Reshape", List.of("x", "s16"), List.of("t"));
        OnnxModelBuilder.Graph other = new OnnxModelBuilder.Graph("else").output("e", FLOAT)
                .node("Reshape", List.of("x", "s8"), List.of("e"));
        OnnxModelBuilder m = new OnnxModelBuilder(13);
        m.graph().input("x", FLOAT, 6).input("sr", INT64).output("y", FLOAT)
                .initializer("k16", Tensor.of(new long[] {16000}))
                .initializer("s16", Tensor.of(new long[] {2, 3}, 2))
                .initializer("s8", Tensor.of(new long[] {4, -1}, 2)) // 6 elements into rows of 4: impossible
                .node("Equal", List.of("sr", "k16"), List.of("is16"))
                .node("If", List.of("is16"), List.of("y"), attrGraph("then_branch", then), attrGraph("else_branch", other));
        return m.build();
    }

    @Test
    void if_onSampleRateInput_untakenBranchWithImpossibleShapesDoesNotFailImport() {
        float[] x = random(new Random(3), 6);
        Tensor sr16 = Tensor.of(new long[] {16000});
        Map<String, Tensor> out = run(ifOnSampleRate(), Map.of("x", Tensor.of(x, 6), "sr", sr16));
        assertEquals(Shape.of(DType.F32, 2, 3), out.get("y").shape());
        assertArrayEquals(x, out.get("y").toFloatArray());
        // the impossible branch, when it is the one taken, is an import error naming its node
        var e = assertThrows(OnnxImportException.class,
                () -> run(ifOnSampleRate(), Map.of("x", Tensor.of(x, 6), "sr", Tensor.of(new long[] {8000}))));
        assertTrue(e.getMessage().contains("Reshape"), e.getMessage());
    }

    /* ---- unsupported ---- */

    @Test
    void unknownOp_unsupportedNamesNodeAndOp() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 2).output("y", FLOAT, 2).node("FancyOp", List.of("x"), List.of("y"));
        var e = assertThrows(OnnxUnsupportedException.class,
                () -> OnnxModel.parse(b.build(), null).importGraph(OnnxBinding.none()));
        assertEquals("FancyOp", e.feature());
        assertTrue(e.getMessage().contains("node #0 'FancyOp0'"), e.getMessage());
    }
}
