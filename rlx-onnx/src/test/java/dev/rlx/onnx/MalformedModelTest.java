package dev.rlx.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rlx.ir.RlxException;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and malformed ONNX files: every problem is a typed {@link RlxException} naming the node, tensor
 * or offset, never an index, allocation or stack failure.
 */
class MalformedModelTest {
    static final int FLOAT = 1;

    /** A small valid model: y = Relu(x @ W + b) with a 3x70 weight, a Reshape and a Concat. */
    static byte[] valid() {
        Random r = new Random(1);
        float[] w = new float[3 * 70];
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) r.nextGaussian();
        }
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, "n", 3).output("y", FLOAT)
                .initializer("W", Tensor.of(w, 3, 70))
                .initializer("b", Tensor.of(new float[] {0.5f}, 1))
                .initializer("shape", Tensor.of(new long[] {-1, 10}, 2))
                .node("MatMul", List.of("x", "W"), List.of("h"))
                .node("Add", List.of("h", "b"), List.of("hb"))
                .node("Relu", List.of("hb"), List.of("r"))
                .node("Reshape", List.of("r", "shape"), List.of("y"),
                        OnnxModelBuilder.attrInt("allowzero", 0));
        return b.build();
    }

    /** Loads, imports for n=2 and compiles; only typed RLX errors may come out. */
    static void loadImportCompile(byte[] bytes, Session s) {
        try {
            OnnxModel m = OnnxModel.parse(bytes, null);
            OnnxGraph g = m.importGraph(OnnxBinding.none().withDim("n", 2));
            try (CompiledGraph c = g.compile(s)) {
                c.paramNames();
            }
        } catch (RlxException expected) {
            // the contract: a typed error
        } catch (Throwable t) {
            fail("untyped failure " + t, t);
        }
    }

    @Test
    void valid_modelImportsAndRuns() {
        try (Session s = new Session(Device.CPU);
             CompiledGraph c = OnnxModel.parse(valid(), null).importGraph(OnnxBinding.none().withDim("n", 2)).compile(s)) {
            c.setInput("x", new float[6]);
            c.run();
            assertTrue(c.output(0).shape().dim(1) == 10);
        }
    }

    @Test
    void truncatedFile_formatErrorWithOffset() {
        byte[] v = valid();
        for (int cut : new int[] {1, 7, v.length / 3, v.length / 2, v.length - 1}) {
            byte[] t = java.util.Arrays.copyOf(v, cut);
            var e = assertThrows(OnnxFormatException.class, () -> OnnxModel.parse(t, null), "cut at " + cut);
            assertTrue(e.getMessage().contains("byte "), e.getMessage());
        }
    }

    @Test
    void wrongWireType_formatErrorNamesField() {
        // field 7 (graph) written as a varint instead of a message
        byte[] bad = OnnxModelBuilder.message(o -> o.writeInt64(7, 42));
        var e = assertThrows(OnnxFormatException.class, () -> OnnxModel.parse(bad, null));
        assertTrue(e.getMessage().contains("field 7"), e.getMessage());
    }

    @Test
    void noGraph_formatError() {
        byte[] bad = OnnxModelBuilder.message(o -> o.writeInt64(1, 8));
        assertThrows(OnnxFormatException.class, () -> OnnxModel.parse(bad, null));
    }

    static byte[] withInitializer(byte[] tensorProto) {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 2).output("y", FLOAT, 2).initializerBytes(tensorProto)
                .node("Add", List.of("x", "t"), List.of("y"));
        return b.build();
    }

    @Test
    void tensorDataDisagreesWithDims_errorNamesTensor() {
        byte[] m = withInitializer(OnnxModelBuilder.rawTensor("t", FLOAT, new long[] {2}, new byte[12]));
        var e = assertThrows(OnnxFormatException.class, () -> OnnxModel.parse(m, null).importGraph(OnnxBinding.none()));
        assertTrue(e.getMessage().contains("tensor 't'") && e.getMessage().contains("8 bytes"), e.getMessage());
    }

    @Test
    void negativeDim_errorNamesTensor() {
        byte[] m = withInitializer(OnnxModelBuilder.rawTensor("t", FLOAT, new long[] {-2}, new byte[8]));
        var e = assertThrows(OnnxFormatException.class, () -> OnnxModel.parse(m, null).importGraph(OnnxBinding.none()));
        assertTrue(e.getMessage().contains("tensor 't'") && e.getMessage().contains("-2"), e.getMessage());
    }

    @Test
    void hugeDims_rejectedBeforeAllocating() {
        byte[] m = withInitializer(OnnxModelBuilder.rawTensor("t", FLOAT, new long[] {1L << 20, 1L << 20}, new byte[8]));
        var e = assertThrows(OnnxFormatException.class, () -> OnnxModel.parse(m, null).importGraph(OnnxBinding.none()));
        assertTrue(e.getMessage().contains("tensor 't'"), e.getMessage());
        byte[] m2 = withInitializer(OnnxModelBuilder.rawTensor("t", FLOAT, new long[] {Long.MAX_VALUE}, new byte[8]));
        assertThrows(OnnxFormatException.class, () -> OnnxModel.parse(m2, null).importGraph(OnnxBinding.none()));
    }

    @Test
    void unsupportedElementType_namesType() {
        byte[] m = withInitializer(OnnxModelBuilder.rawTensor("t", 4, new long[] {2}, new byte[4])); // UINT16
        var e = assertThrows(OnnxUnsupportedException.class, () -> OnnxModel.parse(m, null).importGraph(OnnxBinding.none()));
        assertTrue(e.feature().equals("dtype UINT16"), e.feature());
    }

    @Test
    void undefinedInputName_errorNamesNode() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 2).output("y", FLOAT, 2).node("Add", List.of("x", "nowhere"), List.of("y"));
        var e = assertThrows(OnnxImportException.class, () -> OnnxModel.parse(b.build(), null).importGraph(OnnxBinding.none()));
        assertTrue(e.getMessage().contains("'nowhere'") && e.getMessage().contains("node #0"), e.getMessage());
    }

    @Test
    void badAttribute_errorNamesNodeAndAttribute() {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 2, 2).output("y", FLOAT)
                .node("Transpose", List.of("x"), List.of("y"), OnnxModelBuilder.attrFloat("perm", 1f));
        var e = assertThrows(OnnxImportException.class, () -> OnnxModel.parse(b.build(), null).importGraph(OnnxBinding.none()));
        assertTrue(e.getMessage().contains("'perm'") && e.getMessage().contains("Transpose"), e.getMessage());
    }

    @Test
    void deeplyNestedMessages_rejected() {
        byte[] inner = OnnxModelBuilder.message(o -> o.writeString(1, "x"));
        for (int i = 0; i < 200; i++) {
            byte[] prev = inner;
            inner = OnnxModelBuilder.message(o -> o.writeByteArray(6, prev));
        }
        byte[] deep = inner;
        assertThrows(OnnxFormatException.class, () -> OnnxModel.parse(deep, null));
    }

    /* ---- external data ---- */

    static byte[] external(String location, long offset, long length) {
        return withInitializer(OnnxModelBuilder.externalTensor("t", FLOAT, new long[] {2}, location, offset, length));
    }

    @Test
    void externalData_resolvedRelativeToTheModelFolder(@TempDir Path dir) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        b.putFloat(9).putFloat(9).putFloat(1.5f).putFloat(-2);
        Files.createDirectories(dir.resolve("data"));
        Files.write(dir.resolve("data/w.bin"), b.array());
        Files.write(dir.resolve("model.onnx"), external("data/w.bin", 8, 8));
        try (Session s = new Session(Device.CPU);
             OnnxRunner r = new OnnxRunner(OnnxModel.load(dir.resolve("model.onnx")), s)) {
            float[] y = r.run(Map.of("x", Tensor.of(new float[] {1, 1}, 2))).get("y").toFloatArray();
            assertArrayEquals(new float[] {2.5f, -1}, y);
        }
    }

    @Test
    void externalData_absoluteOrEscapingOrShortIsRefused(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("w.bin"), new byte[8]);
        Files.createDirectories(dir.resolve("m"));
        for (String loc : List.of(dir.resolve("w.bin").toString(), "../w.bin", "sub/../../w.bin")) {
            Files.write(dir.resolve("m/model.onnx"), external(loc, 0, 8));
            var e = assertThrows(OnnxFormatException.class,
                    () -> OnnxModel.load(dir.resolve("m/model.onnx")).importGraph(OnnxBinding.none()), loc);
            assertTrue(e.getMessage().contains("tensor 't'"), e.getMessage());
        }
        Files.write(dir.resolve("m/w.bin"), new byte[8]);
        Files.write(dir.resolve("m/model.onnx"), external("w.bin", 4, 8));
        var e = assertThrows(OnnxFormatException.class,
                () -> OnnxModel.load(dir.resolve("m/model.onnx")).importGraph(OnnxBinding.none()));
        assertTrue(e.getMessage().contains("past the end"), e.getMessage());
        Files.write(dir.resolve("m/model.onnx"), external("missing.bin", 0, 8));
        assertThrows(OnnxFormatException.class, () -> OnnxModel.load(dir.resolve("m/model.onnx")).importGraph(OnnxBinding.none()));
    }

    /* ---- fuzzing ---- */

    @Property(tries = 300)
    void mutatedModels_failOnlyWithTypedErrors(@ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int seed) {
        Random r = new Random(seed);
        byte[] v = valid().clone();
        switch (r.nextInt(4)) {
            case 0 -> { // flip a few bytes
                for (int i = 0; i < 1 + r.nextInt(4); i++) {
                    v[r.nextInt(v.length)] = (byte) r.nextInt(256);
                }
            }
            case 1 -> v = java.util.Arrays.copyOf(v, r.nextInt(v.length)); // truncate
            case 2 -> { // overwrite a run with a large varint (length or dim fields become huge)
                int at = r.nextInt(v.length - 5);
                byte[] big = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07};
                System.arraycopy(big, 0, v, at, 5);
            }
            default -> { // splice a copy of a random range elsewhere
                int from = r.nextInt(v.length);
                int len = r.nextInt(Math.min(64, v.length - from) + 1);
                int to = r.nextInt(v.length - len + 1);
                System.arraycopy(v.clone(), from, v, to, len);
            }
        }
        try (Session s = new Session(Device.CPU)) {
            loadImportCompile(v, s);
        }
    }
}
