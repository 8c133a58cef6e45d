package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.rejects;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Tensor factories, byte layout and element access. */
class TensorTest {

    private static byte[] b(int... v) {
        byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (byte) v[i];
        }
        return out;
    }

    @Test
    void factories_writeLittleEndian() {
        // 1.0f = 0x3F800000, 2.0f = 0x40000000
        assertArrayEquals(b(0, 0, 0x80, 0x3F, 0, 0, 0, 0x40), Tensor.of(new float[] {1, 2}, 2).bytes());
        // 1.0 = 0x3FF0000000000000
        assertArrayEquals(b(0, 0, 0, 0, 0, 0, 0xF0, 0x3F), Tensor.of(new double[] {1}, 1).bytes());
        assertArrayEquals(b(0x04, 0x03, 0x02, 0x01), Tensor.of(new int[] {0x01020304}).bytes());
        assertArrayEquals(b(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF), Tensor.of(new long[] {-1}, 1).bytes());
        assertArrayEquals(b(1, 0, 1), Tensor.of(new boolean[] {true, false, true}, 3).bytes());
    }

    @Test
    void factories_shapesAndDtypes() {
        assertEquals(f32(2, 3), Tensor.of(new float[6], 2, 3).shape());
        assertEquals(Shape.of(DType.F64, 2), Tensor.of(new double[2], 2).shape());
        assertEquals(Shape.of(DType.I32, 1, 1), Tensor.of(new int[1], 1, 1).shape());
        assertEquals(Shape.of(DType.I64, 0), Tensor.of(new long[0], 0).shape());
        assertEquals(Shape.of(DType.BOOL, 2), Tensor.of(new boolean[2], 2).shape());
        assertEquals(f32(), Tensor.scalar(3f).shape());
        assertEquals(f32(), Tensor.of(new float[] {5}).shape(), "no dims: a scalar");
        assertEquals(DType.BOOL, Tensor.of(new boolean[1], 1).dtype());
    }

    @Test
    void factories_countMismatch_rejected() {
        rejects("tensor", () -> Tensor.of(new float[5], 2, 3), "f32[2,3]", "6 elements", "5 values");
        rejects("tensor", () -> Tensor.of(new int[2]), "i32[]", "1 elements", "2 values");
        rejects("tensor", () -> Tensor.of(new long[1], 0), "i64[0]");
        rejects("shape", () -> Tensor.of(new double[1], -1), "negative");
    }

    @Test
    void ofBytes_lengthMustMatchTheShape() {
        rejects("tensor", () -> Tensor.ofBytes(Shape.of(DType.F16, 3), new byte[5]), "f16[3]", "needs 6 bytes", "5");
        rejects("tensor", () -> Tensor.ofBytes(Shape.of(DType.C64), new byte[4]), "c64[]", "needs 8 bytes");
        assertEquals(0, Tensor.ofBytes(f32(4, 0), new byte[0]).byteLength());
        assertEquals(8, Tensor.ofBytes(Shape.of(DType.C64), new byte[8]).byteLength());
    }

    @Test
    void tensor_isImmutable() {
        byte[] src = b(1, 2, 3, 4);
        Tensor t = Tensor.ofBytes(Shape.of(DType.U8, 4), src);
        src[0] = 9;
        assertEquals(1, t.getDouble(0), "ofBytes copies its argument");
        t.bytes()[1] = 9;
        assertEquals(2, t.getDouble(1), "bytes() returns a copy");
        ByteBuffer view = t.buffer();
        assertTrue(view.isReadOnly());
        assertThrows(ReadOnlyBufferException.class, () -> view.put(0, (byte) 7));
        assertEquals(java.nio.ByteOrder.LITTLE_ENDIAN, view.order());
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = ';', value = {
            "F32; 00 00 80 3F; 1.0",                      // 0x3F800000
            "F64; 00 00 00 00 00 00 F0 BF; -1.0",         // 0xBFF0000000000000
            "F16; 00 3C; 1.0",                            // 0x3C00: exponent 15, bias 15
            "F16; 00 C0; -2.0",                           // 0xC000: sign, exponent 16
            "F16; 01 00; 5.9604644775390625E-8",          // 0x0001: smallest subnormal, 2^-24
            "BF16; 80 3F; 1.0",                           // 0x3F80: top half of 1.0f
            "BF16; 40 C0; -3.0",                          // 0xC040: -1.5 * 2^1
            "I8; FF; -1.0",
            "U8; FF; 255.0",
            "I16; FE FF; -2.0",
            "I32; FB FF FF FF; -5.0",
            "U32; FF FF FF FF; 4294967295.0",
            "I64; 00 00 00 00 00 00 00 80; -9.223372036854775808E18", // Long.MIN_VALUE
            "BOOL; 01; 1.0",
            "BOOL; 00; 0.0",
            "BOOL; 02; 1.0",                              // any non-zero byte reads as true
            "C64; 00 00 C0 3F 00 00 00 40; 1.5",          // real part 1.5f, imaginary 2.0f
    })
    void getDouble_perDtype(DType t, String hex, double expected) {
        byte[] bytes = java.util.HexFormat.ofDelimiter(" ").parseHex(hex);
        Tensor tensor = Tensor.ofBytes(Shape.scalar(t), bytes);
        assertEquals(expected, tensor.getDouble(0));
        assertArrayEquals(new double[] {expected}, tensor.toDoubleArray());
        assertArrayEquals(new float[] {(float) expected}, tensor.toFloatArray());
    }

    @Test
    void getDouble_flatRowMajorIndex() {
        Tensor t = Tensor.of(new int[] {10, 20, 30, 40, 50, 60}, 2, 3);
        assertEquals(60, t.getDouble(5));
        assertEquals(40, t.getDouble(3)); // [1, 0]
        Tensor h = Tensor.ofBytes(Shape.of(DType.F16, 2), b(0, 0x3C, 0, 0x40)); // 1.0, 2.0
        assertEquals(2.0, h.getDouble(1));
        Tensor c = Tensor.ofBytes(Shape.of(DType.C64, 2), b(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3F, 0, 0, 0, 0));
        assertEquals(1.0, c.getDouble(1), "element 1 starts 8 bytes in");
        assertThrows(IndexOutOfBoundsException.class, () -> t.getDouble(6));
    }

    // ---------------------------------------------------------------- scalar(dtype, v): "as a cast would"

    @ParameterizedTest(name = "scalar({0}, {1}) = {2}")
    @CsvSource({
            // float to integer truncates toward zero and saturates; NaN gives 0
            "I8, 2.9, 2", "I8, -2.9, -2", "I8, 300, 127", "I8, -300, -128", "I8, NaN, 0",
            "U8, 255.9, 255", "U8, 256, 255", "U8, -1, 0", "U8, -0.5, 0",
            "I16, 40000, 32767", "I16, -40000, -32768",
            "I32, 3e9, 2147483647", "I32, -3e9, -2147483648", "I32, NaN, 0", "I32, Infinity, 2147483647",
            "U32, 4e9, 4000000000", "U32, 5e9, 4294967295", "U32, -1, 0",
            "I64, 1e19, 9223372036854775807", "I64, -Infinity, -9223372036854775808",
            // to BOOL is x != 0 (true for NaN)
            "BOOL, 0, 0", "BOOL, -0.0, 0", "BOOL, 0.5, 1", "BOOL, -3, 1", "BOOL, NaN, 1",
            // real to C64 keeps the real part
            "C64, 1.5, 1.5", "F32, 0.1, 0.10000000149011612", "F64, 0.1, 0.1",
    })
    void scalar_convertsAsACast(DType t, double v, double expected) {
        Tensor s = Tensor.scalar(t, v);
        assertEquals(Shape.scalar(t), s.shape());
        assertEquals(expected, s.getDouble(0));
    }

    @Test
    void scalar_c64_imaginaryPartIsZero() {
        ByteBuffer b = Tensor.scalar(DType.C64, -2.5).buffer();
        assertEquals(-2.5f, b.getFloat(0));
        assertEquals(0f, b.getFloat(4));
    }

    @Test
    void scalar_halfTypes_roundOnceToNearestEven() {
        // 1 + 2^-11 is exactly halfway between the f16 values 1 and 1 + 2^-10: ties go to even (1.0).
        assertEquals(0x3C00, bits(Tensor.scalar(DType.F16, 1 + 0x1p-11)));
        // Just above the tie it must round up. Rounding the double to f32 first would land on the tie
        // (2^-40 is below f32 precision at 1) and then go down: double rounding.
        assertEquals(0x3C01, bits(Tensor.scalar(DType.F16, 1 + 0x1p-11 + 0x1p-40)));
        assertEquals(0x3C00, bits(Tensor.scalar(DType.F16, 1 + 0x1p-11 - 0x1p-40)));
        // Same for bfloat16: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
        assertEquals(0x3F80, bits(Tensor.scalar(DType.BF16, 1 + 0x1p-8)));
        assertEquals(0x3F81, bits(Tensor.scalar(DType.BF16, 1 + 0x1p-8 + 0x1p-40)));
        assertEquals(0xBF81, bits(Tensor.scalar(DType.BF16, -(1 + 0x1p-8 + 0x1p-40))));
        // and the exact cases stay exact; specials are kept
        assertEquals(0x3555, bits(Tensor.scalar(DType.F16, (double) HalfFloats.f16ToFloat((short) 0x3555))));
        assertEquals(0x7C00, bits(Tensor.scalar(DType.F16, 1e6)));
        assertEquals(0x8000, bits(Tensor.scalar(DType.F16, -0.0)));
        assertTrue(Double.isNaN(Tensor.scalar(DType.BF16, Double.NaN).getDouble(0)));
        assertEquals(0xFF80, bits(Tensor.scalar(DType.BF16, Double.NEGATIVE_INFINITY)));
    }

    private static int bits(Tensor half) {
        return half.buffer().getShort(0) & 0xFFFF;
    }

    @Test
    void equality_byShapeAndBytes() {
        Tensor a = Tensor.of(new float[] {1, 2}, 2);
        assertEquals(a, Tensor.of(new float[] {1, 2}, 2));
        assertEquals(a.hashCode(), Tensor.of(new float[] {1, 2}, 2).hashCode());
        assertNotEquals(a, Tensor.of(new float[] {1, 2}, 1, 2));
        assertNotEquals(a, Tensor.of(new float[] {1, 3}, 2));
        assertNotEquals(a, Tensor.ofBytes(Shape.of(DType.I32, 2), a.bytes()), "same bytes, other dtype");
        assertEquals("tensor(f32[2], 8B)", a.toString());
    }
}
