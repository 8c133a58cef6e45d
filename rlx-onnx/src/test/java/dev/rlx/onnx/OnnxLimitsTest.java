package dev.rlx.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.RlxException;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The findings of issue 21 on ONNX import, one regression test each: hostile models that hung, asked for tens
 * of GB, or failed with a wrapped {@code java.lang} exception.
 */
class OnnxLimitsTest {
    static final int FLOAT = 1;
    static final int INT64 = 7;
    static final int BOOL = 9;
    static final Limits SMALL = Limits.builder().tensorBytes(64L << 20).graphNodes(50_000).build();

    private static OnnxGraph imp(byte[] model, Limits limits) {
        return OnnxModel.parse(model, null).importGraph(OnnxBinding.none(), limits);
    }

    private static <T extends RlxException> T typed(Class<T> type, byte[] model, Limits limits, String... mentions) {
        T e = assertThrows(type, () -> imp(model, limits));
        for (String m : mentions) {
            assertTrue(e.getMessage().contains(m), () -> "message lacks '" + m + "': " + e.getMessage());
        }
        assertFalse(e.getMessage().contains("cannot import ("), e.getMessage());
        return e;
    }

    // ---------------------------------------------------------------- loops

    /** Loop(trips) { Loop(innerTrips) { v + one } }: y = x + trips * innerTrips. */
    static byte[] nestedLoops(long trips, long innerTrips) {
        OnnxModelBuilder.Graph inner = new OnnxModelBuilder.Graph("inner")
                .input("j", INT64).input("c2", BOOL).input("u", FLOAT, 1).output("c2o", BOOL).output("uo", FLOAT, 1)
                .node("Identity", List.of("c2"), List.of("c2o"))
                .node("Add", List.of("u", "one"), List.of("uo"));
        OnnxModelBuilder.Graph outer = new OnnxModelBuilder.Graph("outer")
                .input("i", INT64).input("c", BOOL).input("v", FLOAT, 1).output("co", BOOL).output("vo", FLOAT, 1)
                .node("Loop", List.of("N", "T", "v"), List.of("vo"), OnnxModelBuilder.attrGraph("body", inner))
                .node("Identity", List.of("c"), List.of("co"));
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 1).output("y", FLOAT, 1)
                .initializer("M", Tensor.scalar(DType.I64, trips))
                .initializer("N", Tensor.scalar(DType.I64, innerTrips))
                .initializer("T", Tensor.scalar(DType.BOOL, 1))
                .initializer("one", Tensor.of(new float[] {1}, 1))
                .node("Loop", List.of("M", "T", "x"), List.of("y"), OnnxModelBuilder.attrGraph("body", outer));
        return b.build();
    }

    // Regression: a Loop of 1024 inside a Loop of 1024 unrolled to a million bodies (the bound was per loop).
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void nestedLoops1024x1024_unrollOnlyUpToTheProductBound() {
        OnnxGraph g = imp(nestedLoops(1024, 1024), Limits.defaults());
        assertTrue(g.graph().size() < 50_000, "the inner loops stay loops: " + g.graph().size() + " nodes");
        LimitExceededException e = typed(LimitExceededException.class, nestedLoops(1024, 1024),
                Limits.builder().graphNodes(1000).build(), "Loop");
        assertEquals(Limits.Kind.GRAPH_NODES, e.kind());
    }

    @Test
    void nestedLoops_overTheUnrollBound_stillComputeTheSameValue() {
        try (Session s = new Session(Device.CPU);
             CompiledGraph c = imp(nestedLoops(40, 30), Limits.defaults()).compile(s)) {
            c.setInput("x", new float[] {0.5f});
            c.run();
            assertArrayEquals(new float[] {0.5f + 40 * 30}, c.output(0).toTensor().toFloatArray());
        }
    }

    // ---------------------------------------------------------------- sizes asked by small models

    /** y = op(x-free constant inputs): one node over initializers {@code inits}. */
    private static byte[] oneNode(String op, List<String> in, Map<String, Tensor> inits, byte[]... attrs) {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        OnnxModelBuilder.Graph g = b.graph().input("x", FLOAT, 1).output("y", FLOAT);
        inits.forEach(g::initializer);
        g.node(op, in, List.of("y"), attrs);
        return b.build();
    }

    // Regression: a 113-byte Expand model asked for a 17 GB arena.
    @Test
    void expandToHugeShape_refusedAtImport() {
        byte[] m = oneNode("Expand", List.of("x", "shape"),
                Map.of("shape", Tensor.of(new long[] {1 << 16, 1 << 16, 1024}, 3)));
        LimitExceededException e = typed(LimitExceededException.class, m, SMALL, "Expand");
        assertEquals(Limits.Kind.TENSOR_BYTES, e.kind());
        assertEquals(4L << 42, e.asked());
    }

    // Regression: the Tile test model with repeats [300, 300, 300, 1] given as input data asked for 13 GB.
    @Test
    void tileWithHugeRepeatsGivenAsData_refusedAtImport() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 2, 3, 4, 5).input("repeats", INT64, 4).output("y", FLOAT)
                .node("Tile", List.of("x", "repeats"), List.of("y"));
        OnnxBinding bind = OnnxBinding.none().withValue("repeats", Tensor.of(new long[] {300, 300, 300, 1}, 4));
        LimitExceededException e = assertThrows(LimitExceededException.class,
                () -> OnnxModel.parse(b.build(), null).importGraph(bind, SMALL));
        assertEquals(4L * 600 * 900 * 1200 * 5, e.asked());
    }

    @Test
    void constantOfShapeHuge_refusedAtImport() {
        byte[] m = oneNode("ConstantOfShape", List.of("shape"), Map.of("shape", Tensor.of(new long[] {1 << 20, 1 << 20}, 2)));
        assertEquals(Limits.Kind.TENSOR_BYTES, typed(LimitExceededException.class, m, SMALL, "ConstantOfShape").kind());
    }

    // Regression: a 2^40-element input was allocated (8 TB asked of the arena).
    @Test
    void inputOf2To40Elements_refusedAtImport() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 1 << 20, 1 << 20).output("y", FLOAT).node("Relu", List.of("x"), List.of("y"));
        LimitExceededException e = typed(LimitExceededException.class, b.build(), Limits.defaults(), "graph input 'x'");
        assertEquals(4L << 40, e.asked());
    }

    // Regression: ConvTranspose with kernel height 40,000 allocated a 6.4 GB tap map at compile.
    @Test
    void convTransposeKernel40000_refusedAtImport() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 1, 1, 1, 1).output("y", FLOAT)
                .initializer("w", Tensor.of(new float[40_000], 1, 1, 40_000, 1))
                .node("ConvTranspose", List.of("x", "w"), List.of("y"));
        LimitExceededException e = typed(LimitExceededException.class, b.build(), SMALL, "ConvTranspose", "tap map");
        assertEquals(4L * 40_000 * 40_000, e.asked());
    }

    /** Expand's output is admitted exactly when it fits the tensor limit (the 8-byte shape always does). */
    @Property(tries = 40)
    void expandLimit_admitsExactlyOutputsThatFit(@ForAll @IntRange(min = 1, max = 64) int n,
                                                 @ForAll @IntRange(min = 8, max = 300) int limit) {
        byte[] m = oneNode("Expand", List.of("x", "shape"), Map.of("shape", Tensor.of(new long[] {n}, 1)));
        Limits l = Limits.builder().tensorBytes(limit).build();
        if (4L * n <= limit) {
            assertEquals(Shape.of(DType.F32, n), imp(m, l).graph().outputs().get(0).shape());
        } else {
            assertEquals(4L * n, assertThrows(LimitExceededException.class, () -> imp(m, l)).asked());
        }
    }

    // ---------------------------------------------------------------- files

    // Regression: an external-data reference to a FIFO in the model folder blocked OnnxModel.load forever.
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void externalDataFifo_refusedWithoutOpeningIt(@TempDir Path dir) throws IOException, InterruptedException {
        Path fifo = dir.resolve("w.bin");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, p.waitFor());
        Files.write(dir.resolve("model.onnx"), MalformedModelTest.external("w.bin", 0, 8));
        OnnxFormatException e = assertThrows(OnnxFormatException.class,
                () -> OnnxModel.load(dir.resolve("model.onnx")).importGraph(OnnxBinding.none()));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
        assertTrue(assertThrows(OnnxFormatException.class, () -> OnnxModel.load(fifo)).getMessage()
                .contains("not a regular file"));
    }

    // ---------------------------------------------------------------- typed errors (were wrapped java.lang exceptions)

    private static byte[] noValueAttr(String name, int type) {
        return OnnxModelBuilder.message(o -> {
            o.writeString(1, name);
            o.writeInt32(20, type);
        });
    }

    @Test
    void ifWithoutElseBranch_namesTheNode() {
        OnnxModelBuilder.Graph then = new OnnxModelBuilder.Graph("then").output("x", FLOAT, 1);
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 1).input("c", BOOL).output("y", FLOAT)
                .node("If", List.of("c"), List.of("y"), OnnxModelBuilder.attrGraph("then_branch", then));
        typed(OnnxImportException.class, b.build(), Limits.defaults(), "If", "else_branch");
        OnnxModelBuilder b2 = new OnnxModelBuilder(13);
        b2.graph().input("x", FLOAT, 1).input("c", BOOL).output("y", FLOAT)
                .node("If", List.of("c"), List.of("y"), OnnxModelBuilder.attrGraph("then_branch", then),
                        noValueAttr("else_branch", 5));
        typed(OnnxImportException.class, b2.build(), Limits.defaults(), "If", "else_branch", "holds no graph");
    }

    @Test
    void constantOfShapeValueWithoutATensor_namesTheNode() {
        byte[] m = oneNode("ConstantOfShape", List.of("shape"), Map.of("shape", Tensor.of(new long[] {2}, 1)),
                noValueAttr("value", 4));
        typed(OnnxImportException.class, m, Limits.defaults(), "ConstantOfShape", "'value'", "holds no tensor");
    }

    @Test
    void topKOverAZeroSizedDim_importsOrNamesTheNode() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 3, 0).output("y", FLOAT).initializer("k", Tensor.of(new long[] {1}, 1))
                .node("TopK", List.of("x", "k"), List.of("y", "idx"));
        typed(OnnxImportException.class, b.build(), Limits.defaults(), "TopK", "k=1");
        OnnxModelBuilder b2 = new OnnxModelBuilder(13);
        b2.graph().input("x", FLOAT, 3, 0).output("y", FLOAT).initializer("k", Tensor.of(new long[0], 0))
                .node("TopK", List.of("x", "k"), List.of("y", "idx"));
        typed(OnnxImportException.class, b2.build(), Limits.defaults(), "TopK", "must hold one value");
    }

    @Test
    void emptyEinsumEquation_namesTheNode() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 2, 3).output("y", FLOAT)
                .node("Einsum", List.of("x"), List.of("y"), OnnxModelBuilder.attrString("equation", ""));
        typed(OnnxImportException.class, b.build(), Limits.defaults(), "Einsum", "empty");
        OnnxModelBuilder b2 = new OnnxModelBuilder(13);
        b2.graph().input("x", FLOAT, 2, 3).output("y", FLOAT)
                .node("Einsum", List.of("x"), List.of("y"), OnnxModelBuilder.attrString("equation", "i..j.k->"));
        typed(OnnxImportException.class, b2.build(), Limits.defaults(), "Einsum", "'.'");
    }

    @Test
    void quantizedConvOfRankTwo_namesTheNode() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", 2, 2, 3).output("y", 6)
                .initializer("w", Tensor.ofBytes(Shape.of(DType.U8, 2, 3), new byte[6]))
                .node("ConvInteger", List.of("x", "w"), List.of("y"));
        typed(OnnxImportException.class, b.build(), Limits.defaults(), "ConvInteger", "[N, C, *spatial]");
    }

    @Test
    void poolWithoutSpatialDims_namesTheNode() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 2, 3).output("y", FLOAT)
                .node("MaxPool", List.of("x"), List.of("y"), OnnxModelBuilder.attrInts("kernel_shape"));
        RlxException e = assertThrows(RlxException.class, () -> imp(b.build(), Limits.defaults()));
        assertTrue(e.getMessage().contains("MaxPool") && !e.getMessage().contains("cannot import ("), e.getMessage());
    }
}
