package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HalfFloats;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.runtime.weights.BytesWeightLoader;
import dev.rlx.runtime.weights.SafetensorsLoader;
import dev.rlx.runtime.weights.SafetensorsWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Params from weight loaders: matching names, dtype conversion, and the rejections. */
class CompiledGraphWeightsTest {
    private static final Device DEVICE = Device.TPU;
    private FakeBackend fake;
    private CompiledGraph c;

    /** Input "x" and three params of different dtypes; the fake leaves params alone, so their slots show what was set. */
    @BeforeEach
    void compile() {
        Graph g = new Graph("weights");
        Value x = g.input("x", Shape.of(DType.F32, 1, 2));
        Value w = g.param("w", Shape.of(DType.F32, 2, 2));
        Value ids = g.param("ids", Shape.of(DType.I8, 3));
        Value b = g.param("b", Shape.of(DType.F32, 2));
        g.setOutputs(g.transpose(x, 1, 0), g.neg(w), g.neg(ids), g.neg(b));
        fake = FakeBackend.full(DEVICE, false);
        BackendRegistry.global().register(DEVICE, () -> fake);
        try (Session s = new Session(DEVICE)) {
            c = s.compile(g);
        }
    }

    @AfterEach
    void close() {
        c.close();
        BackendRegistry.global().unregister(DEVICE);
    }

    private float[] param(String name) {
        Value v = c.graph().param(name);
        return fake.last().slot(v).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
    }

    private byte[] paramBytes(String name) {
        return fake.last().slot(c.graph().param(name)).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] f16(float... values) {
        ByteBuffer b = ByteBuffer.allocate(2 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putShort(HalfFloats.toF16(v));
        }
        return b.array();
    }

    @Test
    void setParams_setsMatchingParamsAndConvertsF16IntoF32() {
        BytesWeightLoader l = BytesWeightLoader.of(Map.of())
                .add("w", Shape.of(DType.F16, 2, 2), f16(0.5f, -1.25f, 2048f, 1f / 3))
                .add("ids", Shape.of(DType.I64, 3), Tensor.of(new long[] {-128, 0, 127}, 3).bytes())
                .add("unrelated", Shape.of(DType.F32, 1), new byte[4]);

        List<String> set = c.setParams(l);

        assertEquals(List.of("w", "ids"), set, "params in declaration order; the loader's extra tensor is ignored");
        assertArrayEquals(new float[] {0.5f, -1.25f, 2048f, HalfFloats.f16ToFloat(HalfFloats.toF16(1f / 3))}, param("w"));
        assertArrayEquals(new byte[] {-128, 0, 127}, paramBytes("ids"));
        c.setInput("x", new float[2]);
        BindingException e = assertThrows(BindingException.class, c::run);
        assertTrue(e.getMessage().contains("param 'b'"), "the param the loader lacked is still unset: " + e.getMessage());
    }

    @Test
    void setParams_fromASafetensorsFile(@TempDir Path dir) throws Exception {
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("b", Tensor.of(new double[] {1.5, -2}, 2));
        m.put("w", Tensor.ofBytes(Shape.of(DType.BF16, 2, 2), new byte[] {0, 0x3F, 0, 0x40, 0, (byte) 0xC0, (byte) 0x80, 0x3F}));
        Path p = dir.resolve("w.safetensors");
        SafetensorsWriter.write(p, m);
        try (SafetensorsLoader l = SafetensorsLoader.open(p)) {
            assertEquals(List.of("w", "b"), c.setParams(l));
        }
        assertArrayEquals(new float[] {0.5f, 2f, -2f, 1f}, param("w"));
        assertArrayEquals(new float[] {1.5f, -2f}, param("b"), "values were copied before the file was unmapped");
    }

    @Test
    void setParam_loaderWithoutTheTensor_namesIt() {
        BytesWeightLoader l = BytesWeightLoader.of(Map.of("other", Tensor.of(new float[] {1}, 1)));
        BindingException e = assertThrows(BindingException.class, () -> c.setParam("w", l));
        assertTrue(e.getMessage().contains("no tensor 'w'") && e.getMessage().contains("f32[2,2]"), e.getMessage());
    }

    @Test
    void setParam_loaderTensorWithOtherDims_isRejectedAndThePreviousValueKept() {
        c.setParam("w", new float[] {1, 2, 3, 4});
        BytesWeightLoader l = BytesWeightLoader.of(Map.of("w", Tensor.of(new float[] {9, 9, 9, 9}, 4)));
        BindingException e = assertThrows(BindingException.class, () -> c.setParam("w", l));
        assertTrue(e.getMessage().contains("param 'w' is f32[2,2]") && e.getMessage().contains("f32[4]"), e.getMessage());
        assertThrows(BindingException.class, () -> c.setParams(l));
        assertArrayEquals(new float[] {1, 2, 3, 4}, param("w"));
    }

    @Test
    void setParam_loaderUnknownParam_listsTheParams() {
        BytesWeightLoader l = BytesWeightLoader.of(Map.of("nope", Tensor.of(new float[] {1}, 1)));
        BindingException e = assertThrows(BindingException.class, () -> c.setParam("nope", l));
        assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains("[w, ids, b]"), e.getMessage());
    }

    @Test
    void setParam_integerWeightOutOfRange_isRejectedAndThePreviousValueKept() {
        c.setParam("ids", new int[] {1, 2, 3});
        BytesWeightLoader l = BytesWeightLoader.of(Map.of("ids", Tensor.of(new int[] {1, 2, 300}, 3)));
        BindingException e = assertThrows(BindingException.class, () -> c.setParam("ids", l));
        assertTrue(e.getMessage().contains("300") && e.getMessage().contains("i8"), e.getMessage());
        assertArrayEquals(new byte[] {1, 2, 3}, paramBytes("ids"));
    }

    @Test
    void setParam_weightOfAnotherKind_isRejected() {
        BytesWeightLoader floats = BytesWeightLoader.of(Map.of("ids", Tensor.of(new float[] {1, 2, 3}, 3)));
        BindingException e = assertThrows(BindingException.class, () -> c.setParam("ids", floats));
        assertTrue(e.getMessage().contains("param 'ids'") && e.getMessage().contains("f32"), e.getMessage());
        BytesWeightLoader ints = BytesWeightLoader.of(Map.of("b", Tensor.of(new int[] {1, 2}, 2)));
        assertThrows(BindingException.class, () -> c.setParam("b", ints));
        BytesWeightLoader bools = BytesWeightLoader.of(Map.of("ids", Tensor.of(new boolean[] {true, false, true}, 3)));
        assertThrows(BindingException.class, () -> c.setParam("ids", bools));
    }

    @Test
    void setParam_sameDtypeWeight_isCopiedAsIs() {
        c.setParam("b", BytesWeightLoader.of(Map.of("b", Tensor.of(new float[] {Float.NaN, -0f}, 2))));
        float[] b = param("b");
        assertTrue(Float.isNaN(b[0]));
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(b[1]));
        MemorySegment raw = fake.last().slot(c.graph().param("b"));
        assertEquals(8, raw.byteSize());
    }
}
