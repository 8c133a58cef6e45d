package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.rejects;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Shape value semantics, counts, overflow and strides. */
class ShapeTest {
    private static final int BIG = Integer.MAX_VALUE;

    @Test
    void shape_valueEquality() {
        assertEquals(f32(1, 4), Shape.of(DType.F32, List.of(1, 4)));
        assertEquals(f32(1, 4).hashCode(), Shape.of(DType.F32, List.of(1, 4)).hashCode());
        assertEquals(Shape.scalar(DType.I8), Shape.of(DType.I8));
        assertNotEquals(f32(1, 4), f32(4, 1));
        assertNotEquals(f32(1, 4), Shape.of(DType.I32, 1, 4));
        assertNotEquals(f32(1), f32());
        assertNotEquals(f32(4), "f32[4]");
        assertTrue(f32(2, 3).sameDims(Shape.of(DType.BOOL, 2, 3)));
        assertFalse(f32(2, 3).sameDims(f32(3, 2)));
    }

    @Test
    void shape_isImmutable() {
        int[] dims = {2, 3};
        Shape s = Shape.of(DType.F32, dims);
        dims[0] = 7;
        assertEquals(f32(2, 3), s, "of() copies its argument");
        s.dims()[1] = 9;
        assertEquals(f32(2, 3), s, "dims() returns a copy");
        assertThrows(UnsupportedOperationException.class, () -> s.dimList().set(0, 5));
    }

    @Test
    void shape_accessors() {
        Shape s = Shape.of(DType.BF16, 2, 3, 5);
        assertEquals(3, s.rank());
        assertEquals(5, s.dim(-1));
        assertEquals(2, s.dim(-3));
        assertEquals(3, s.dim(1));
        rejects("shape", () -> s.dim(3), "axis 3", "bf16[2,3,5]");
        rejects("shape", () -> s.dim(-4), "axis -4");
        assertTrue(f32().isScalar());
        assertFalse(f32(1).isScalar());
        assertEquals("bf16[2,3,5]", s.toString());
        assertEquals("f32[]", f32().toString());
        assertEquals(List.of(2, 3, 5), s.dimList());
    }

    @Test
    void shape_derivedShapes() {
        Shape s = f32(2, 3);
        assertSame(s, s.withDtype(DType.F32));
        assertEquals(Shape.of(DType.C64, 2, 3), s.withDtype(DType.C64));
        assertEquals(f32(2, 7), s.withDim(-1, 7));
        assertEquals(f32(9), s.withDims(9));
        assertEquals(f32(2, 3), s, "derivations leave the original alone");
        rejects("shape", () -> s.withDim(0, -1), "negative");
    }

    @Test
    void shape_counts() {
        assertEquals(1, f32().elementCount(), "a scalar has one element");
        assertEquals(4, f32().byteSize());
        assertEquals(0, f32(3, 0, 5).elementCount());
        assertEquals(0, f32(3, 0, 5).byteSize());
        assertEquals(30, Shape.of(DType.C64, 2, 3, 5).elementCount());
        assertEquals(240, Shape.of(DType.C64, 2, 3, 5).byteSize());
        assertEquals(15, Shape.of(DType.I8, 2, 3, 5).elementCount(1, 3));
        assertEquals(1, Shape.of(DType.I8, 2, 3, 5).elementCount(1, 1));
    }

    @Test
    void shape_negativeDims_rejected() {
        rejects("shape", () -> f32(2, -1), "dimension 1 is negative", "[2, -1]");
        rejects("shape", () -> Shape.of(DType.I32, List.of(-3)), "negative");
    }

    @Test
    void shape_elementCountOverflow_rejected() {
        // (2^31-1)^3 > 2^63
        rejects("shape", () -> Shape.of(DType.I8, BIG, BIG, BIG), "element count overflows", "i8[");
        // (2^31-1)^2 ~ 4.6e18 elements fit a long, but 8 bytes each do not
        Shape ok = Shape.of(DType.I8, BIG, BIG);
        assertEquals((long) BIG * BIG, ok.elementCount());
        rejects("shape", () -> Shape.of(DType.F64, BIG, BIG), "byte size overflows", "f64[");
        rejects("shape", () -> ok.withDtype(DType.F64), "byte size overflows");
    }

    @Test
    void shape_zeroDim_meansNoElementsWhateverTheOtherDims() {
        // The element count is 0, which never overflows, wherever the 0 appears.
        assertEquals(0, Shape.of(DType.F64, 0, BIG, BIG, BIG).elementCount());
        assertEquals(0, Shape.of(DType.F64, BIG, BIG, BIG, 0).elementCount());
        assertEquals(0, Shape.of(DType.F64, BIG, BIG, BIG, 0).byteSize());
    }

    @Test
    void shape_strides_rowMajorInElements() {
        assertArrayEquals(new long[] {12, 4, 1}, f32(2, 3, 4).strides());
        assertArrayEquals(new long[0], f32().strides());
        assertArrayEquals(new long[] {1}, f32(7).strides());
        assertArrayEquals(new long[] {0, 3, 1}, f32(2, 0, 3).strides(), "product of the later dims");
        assertArrayEquals(new long[] {(long) BIG, 1}, Shape.of(DType.I8, BIG, BIG).strides());
    }
}
