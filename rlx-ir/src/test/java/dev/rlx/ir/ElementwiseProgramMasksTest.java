package dev.rlx.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The mask steps of a fused program: compare gives a mask, select reads one, and masks go nowhere else. */
class ElementwiseProgramMasksTest {
    @Test
    void leakyReluAsCompareAndSelect_printsAndAcceptsFloats() {
        ElementwiseProgram p = ElementwiseProgram.builder(3).compare(CompareKind.LT, 0, 1)
                .binary(BinaryKind.MUL, 0, 2).select(3, 4, 0).build();
        assertEquals("where(lt(in0, in1), mul(in0, in2), in0)", p.toString());
        assertTrue(p.hasMasks());
        assertTrue(p.accepts(DType.F32));
        assertFalse(ElementwiseProgram.builder(1).unary(UnaryKind.EXP, 0).build().hasMasks());
        assertEquals(new Op.Fused(p).outputShapes(java.util.List.of(Shape.of(DType.F32, 2, 3), Shape.of(DType.F32),
                Shape.of(DType.F32, 3))), java.util.List.of(Shape.of(DType.F32, 2, 3)));
    }

    @Test
    void masksOnlyFeedSelects_andTheResultIsNoMask() {
        var bad = assertThrows(IllegalArgumentException.class, () -> ElementwiseProgram.builder(2)
                .compare(CompareKind.GT, 0, 1).binary(BinaryKind.ADD, 2, 0).build());
        assertTrue(bad.getMessage().contains("must not be a mask"), bad.getMessage());
        var cond = assertThrows(IllegalArgumentException.class, () -> ElementwiseProgram.builder(2)
                .select(0, 1, 0).build());
        assertTrue(cond.getMessage().contains("must be a mask"), cond.getMessage());
        var last = assertThrows(IllegalArgumentException.class, () -> ElementwiseProgram.builder(2)
                .compare(CompareKind.EQ, 0, 1).build());
        assertTrue(last.getMessage().contains("not a mask"), last.getMessage());
        var data = assertThrows(IllegalArgumentException.class, () -> ElementwiseProgram.builder(2)
                .compare(CompareKind.EQ, 0, 1).select(2, 2, 0).build());
        assertTrue(data.getMessage().contains("operand 1 must not be a mask"), data.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ElementwiseProgram.builder(2)
                .compare(CompareKind.EQ, 0, 1).select(2, 0, 5).build()); // undefined value
    }

    @Test
    void aStepIsExactlyOneForm() {
        assertThrows(IllegalArgumentException.class,
                () -> new ElementwiseProgram.Step(UnaryKind.EXP, BinaryKind.ADD, 0, 1));
        assertThrows(IllegalArgumentException.class,
                () -> new ElementwiseProgram.Step(null, null, CompareKind.LT, true, 0, 1, 2));
    }
}
