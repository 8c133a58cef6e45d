package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.rejects;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** RngNormal / RngUniform: shapes from attributes, validation, per-node stream keys, impurity. */
class RngShapeTest {

    @Test
    void rngNormal_outputIsTheAttributeShape() {
        Graph g = new Graph("r");
        Value v = g.rngNormal(1f, 2f, f32(2, 3));
        assertEquals(f32(2, 3), v.shape());
        assertEquals(new Op.RngNormal(1f, 2f, f32(2, 3), 0, false, 0), v.node().op());
        Value d = g.rngUniform(-1f, 1f, Shape.of(DType.F64, 4), 9);
        assertEquals(new Op.RngUniform(-1f, 1f, Shape.of(DType.F64, 4), 9, true, 1), d.node().op());
    }

    @Test
    void rng_twoNodes_getDistinctKeysSoCseCannotMergeThem() {
        Graph g = new Graph("r");
        Op a = g.rngNormal(0f, 1f, f32(4)).node().op();
        Op b = g.rngNormal(0f, 1f, f32(4)).node().op();
        assertNotEquals(a, b, "equal attributes but different streams");
    }

    @Test
    void rng_kindsAreImpure() {
        assertTrue(OpKind.IMPURE.contains(OpKind.RNG_NORMAL));
        assertTrue(OpKind.IMPURE.contains(OpKind.RNG_UNIFORM));
        assertFalse(OpKind.IMPURE.contains(OpKind.MATMUL));
    }

    @Test
    void rng_badParameters_rejected() {
        rejects("rng_normal", () -> new Op.RngNormal(0f, -1f, f32(2), 0, false, 0), "scale", "-1.0");
        rejects("rng_normal", () -> new Op.RngNormal(Float.NaN, 1f, f32(2), 0, false, 0), "mean", "NaN");
        rejects("rng_normal", () -> new Op.RngNormal(0f, 1f, Shape.of(DType.I32, 2), 0, false, 0), "float", "i32[2]");
        rejects("rng_uniform", () -> new Op.RngUniform(2f, 1f, f32(2), 0, false, 0), "low 2.0", "high 1.0");
        rejects("rng_uniform", () -> new Op.RngUniform(0f, Float.POSITIVE_INFINITY, f32(2), 0, false, 0), "finite");
        Graph g = new Graph("r");
        Value x = g.input("x", f32(2));
        rejects("rng_uniform", () -> new Op.RngUniform(0f, 1f, f32(2), 0, false, 0).outputShapes(List.of(x.shape())),
                "expected 0 inputs");
    }
}
