package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.out;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The {@link Op.Fft} shape rule, its builder and the norm factors. */
class FftShapeTest {

    // ---------------------------------------------------------------- shapes

    @Test
    void c2c_keepsShapeForC64AndPairs() {
        assertEquals(s(DType.C64, 3, 8), out(new Op.Fft(FftKind.C2C_FORWARD, 1, FftNorm.BACKWARD, 8), s(DType.C64, 3, 8)));
        assertEquals(s(DType.F64, 8, 3, 2),
                out(new Op.Fft(FftKind.C2C_INVERSE, 0, FftNorm.ORTHO, 8), s(DType.F64, 8, 3, 2)));
        assertEquals(f32(5, 2), out(new Op.Fft(FftKind.C2C_FORWARD, 0, FftNorm.NONE, 5), f32(5, 2)));
    }

    @Test
    void r2c_givesHalfPlusOneBinsAsPairs() {
        assertEquals(f32(4, 5, 2), out(new Op.Fft(FftKind.R2C, 1, FftNorm.BACKWARD, 8), f32(4, 8)));
        assertEquals(s(DType.F64, 4, 2, 3, 2), out(new Op.Fft(FftKind.R2C, 0, FftNorm.BACKWARD, 7), s(DType.F64, 7, 2, 3)));
        assertEquals(f32(1, 2), out(new Op.Fft(FftKind.R2C, 0, FftNorm.BACKWARD, 1), f32(1)));
    }

    @Test
    void c2r_givesNRealSamples() {
        assertEquals(f32(4, 8), out(new Op.Fft(FftKind.C2R, 1, FftNorm.BACKWARD, 8), f32(4, 5, 2)));
        assertEquals(f32(4, 9), out(new Op.Fft(FftKind.C2R, 1, FftNorm.BACKWARD, 9), f32(4, 5, 2)));
        assertEquals(f32(9, 3), out(new Op.Fft(FftKind.C2R, 0, FftNorm.BACKWARD, 9), s(DType.C64, 5, 3)));
        assertEquals(s(DType.F64, 2, 3), out(new Op.Fft(FftKind.C2R, 0, FftNorm.BACKWARD, 2), s(DType.F64, 2, 3, 2)));
    }

    @Test
    void builder_negativeAxisCountsSignalDims() {
        Graph g = new Graph("f");
        Value pairs = in(g, f32(3, 8, 2));
        Value y = g.fft(pairs, FftKind.C2C_FORWARD, -1, FftNorm.BACKWARD, 8);
        assertEquals(new Op.Fft(FftKind.C2C_FORWARD, 1, FftNorm.BACKWARD, 8), y.node().op());
        Value real = in(g, f32(3, 8));
        assertEquals(new Op.Fft(FftKind.R2C, 0, FftNorm.ORTHO, 3), g.fft(real, FftKind.R2C, -2, FftNorm.ORTHO, 3).node().op());
        Value c = in(g, DType.C64, 3, 8);
        assertEquals(f32(3, 14), g.fft(c, FftKind.C2R, -1, FftNorm.FORWARD, 14).shape());
    }

    @Test
    void fft_labelIsTheNumpyName() {
        assertEquals("fft", new Op.Fft(FftKind.C2C_FORWARD, 0, FftNorm.BACKWARD, 2).label());
        assertEquals("ifft", new Op.Fft(FftKind.C2C_INVERSE, 0, FftNorm.BACKWARD, 2).label());
        assertEquals("rfft", new Op.Fft(FftKind.R2C, 0, FftNorm.BACKWARD, 2).label());
        assertEquals("irfft", new Op.Fft(FftKind.C2R, 0, FftNorm.BACKWARD, 2).label());
        assertEquals(OpKind.FFT, new Op.Fft(FftKind.R2C, 0, FftNorm.BACKWARD, 2).kind());
    }

    // ---------------------------------------------------------------- rejections

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"F16", "BF16", "I32", "I64", "U8", "BOOL"})
    void fft_nonFloatOrHalfDtype_rejected(DType t) {
        Graph g = new Graph("f");
        Value x = in(g, t, 4, 2);
        rejects(g, "fft", () -> g.fft(x, FftKind.C2C_FORWARD, 0, FftNorm.BACKWARD, 4), "f32, f64 or c64", t.label() + "[4,2]");
        rejects(g, "rfft", () -> g.fft(x, FftKind.R2C, 0, FftNorm.BACKWARD, 4), t.label() + "[4,2]");
    }

    @Test
    void rfft_complexInput_rejected() {
        Graph g = new Graph("f");
        Value x = in(g, DType.C64, 8);
        rejects(g, "rfft", () -> g.fft(x, FftKind.R2C, 0, FftNorm.BACKWARD, 8), "real", "c64[8]");
    }

    @Test
    void fft_pairsWithoutTrailingTwo_rejected() {
        Graph g = new Graph("f");
        Value x = in(g, f32(8, 3));
        Value v = in(g, f32(8));
        rejects(g, "fft", () -> g.fft(x, FftKind.C2C_FORWARD, 0, FftNorm.BACKWARD, 8), "(re, im)", "f32[8,3]");
        rejects(g, "irfft", () -> g.fft(v, FftKind.C2R, 0, FftNorm.BACKWARD, 14), "(re, im)", "f32[8]");
    }

    @Test
    void fft_lengthMismatch_rejected() {
        Graph g = new Graph("f");
        Value x = in(g, f32(3, 8, 2));
        Value r = in(g, f32(3, 8));
        rejects(g, "fft", () -> g.fft(x, FftKind.C2C_FORWARD, 1, FftNorm.BACKWARD, 16), "length 8", "n is 16", "f32[3,8,2]");
        rejects(g, "rfft", () -> g.fft(r, FftKind.R2C, 0, FftNorm.BACKWARD, 8), "length 3", "f32[3,8]");
        rejects(g, "irfft", () -> g.fft(x, FftKind.C2R, 1, FftNorm.BACKWARD, 8), "8 bins", "n/2+1 = 5");
    }

    @Test
    void fft_axisOutOfRange_rejected() {
        Graph g = new Graph("f");
        Value x = in(g, f32(3, 8, 2));
        rejects(g, "fft", () -> g.fft(x, FftKind.C2C_FORWARD, 2, FftNorm.BACKWARD, 2), "axis 2", "2 signal dims");
        rejects(g, "fft", () -> g.fft(x, FftKind.C2C_FORWARD, -3, FftNorm.BACKWARD, 3), "axis -1");
        Value scalar = in(g, f32());
        rejects(g, "rfft", () -> g.fft(scalar, FftKind.R2C, 0, FftNorm.BACKWARD, 1), "axis 0", "0 signal dims");
    }

    @Test
    void fft_nonPositiveN_rejected() {
        rejects("fft", () -> new Op.Fft(FftKind.C2C_FORWARD, 0, FftNorm.BACKWARD, 0), "n must be positive");
        rejects("irfft", () -> new Op.Fft(FftKind.C2R, 0, FftNorm.BACKWARD, -4), "n must be positive");
    }

    // ---------------------------------------------------------------- norms

    @Test
    void norm_scalesAsNumpy() {
        // numpy.fft's table: backward = 1 forward, 1/n inverse; ortho = 1/sqrt(n) both; forward = 1/n forward, 1 inverse
        assertEquals(1.0, FftNorm.BACKWARD.scale(false, 16));
        assertEquals(1.0 / 16, FftNorm.BACKWARD.scale(true, 16));
        assertEquals(0.25, FftNorm.ORTHO.scale(false, 16));
        assertEquals(0.25, FftNorm.ORTHO.scale(true, 16));
        assertEquals(1.0 / 16, FftNorm.FORWARD.scale(false, 16));
        assertEquals(1.0, FftNorm.FORWARD.scale(true, 16));
        assertEquals(1.0, FftNorm.NONE.scale(false, 16));
        assertEquals(1.0, FftNorm.NONE.scale(true, 16));
    }

    @Test
    void kind_inverseOnlyForIfftAndIrfft() {
        assertFalse(FftKind.C2C_FORWARD.inverse());
        assertTrue(FftKind.C2C_INVERSE.inverse());
        assertFalse(FftKind.R2C.inverse());
        assertTrue(FftKind.C2R.inverse());
    }
}
