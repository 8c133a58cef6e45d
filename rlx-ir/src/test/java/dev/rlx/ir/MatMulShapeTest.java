package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** numpy.matmul shape rules. */
class MatMulShapeTest {

    @ParameterizedTest(name = "{0} x {1} -> {2}")
    @CsvSource(delimiter = ';', value = {
            "2,3; 3,4; 2,4",
            "3; 3,4; 4",              // 1-D lhs is a row [1,K]; the added 1 is removed
            "2,3; 3; 2",              // 1-D rhs is a column [K,1]
            "3; 3; ",                 // vector . vector is a scalar
            "5,2,3; 3,4; 5,2,4",      // rhs batch broadcast
            "2,3; 5,3,4; 5,2,4",      // lhs batch broadcast
            "5,1,2,3; 4,3,6; 5,4,2,6",// batch dims broadcast [5,1] with [4]
            "3; 5,3,4; 5,4",
            "5,2,3; 3; 5,2",
            "0,3; 3,4; 0,4",
            "2,0; 0,4; 2,4",          // K = 0 is allowed (sums of nothing)
            "1,1,2,3; 7,1,3,4; 7,1,2,4",
    })
    void matmul_numpyRules(String a, String b, String expected) {
        Graph g = new Graph("m");
        Value x = in(g, f32(ElementwiseShapeTest.dims(a)));
        Value y = in(g, f32(ElementwiseShapeTest.dims(b)));
        assertEquals(f32(ElementwiseShapeTest.dims(expected)), g.matmul(x, y).shape());
    }

    @Test
    void matmul_vectorTimesMatrix() {
        Graph g = new Graph("m");
        assertEquals(f32(4), g.matmul(in(g, f32(3)), in(g, f32(3, 4))).shape());
    }

    @Test
    void matmul_integerOperands_keepTheirDtype() {
        Graph g = new Graph("m");
        assertEquals(s(DType.I8, 2, 5), g.matmul(in(g, DType.I8, 2, 3), in(g, DType.I8, 3, 5)).shape());
    }

    @Test
    void matmul_kMismatch_messageNamesBothShapesAndK() {
        Graph g = new Graph("m");
        Value x = in(g, f32(2, 3));
        Value y = in(g, f32(4, 5));
        rejects(g, "matmul", () -> g.matmul(x, y), "f32[2,3]", "f32[4,5]", "K=3", "K=4");
        Value v = in(g, f32(5));
        rejects(g, "matmul", () -> g.matmul(v, x), "f32[5]", "f32[2,3]", "K=5", "K=2");
    }

    @Test
    void matmul_batchMismatch_rejected() {
        Graph g = new Graph("m");
        Value x = in(g, f32(2, 2, 3));
        Value y = in(g, f32(3, 3, 4));
        rejects(g, "matmul", () -> g.matmul(x, y), "f32[2,2,3]", "f32[3,3,4]", "batch", "broadcast");
    }

    @Test
    void matmul_scalarOperands_rejected() {
        Graph g = new Graph("m");
        Value sc = in(g, f32());
        Value m = in(g, f32(2, 2));
        rejects(g, "matmul", () -> g.matmul(sc, m), "f32[]", "f32[2,2]");
        rejects(g, "matmul", () -> g.matmul(m, sc), "f32[]", "f32[2,2]");
    }

    @Test
    void matmul_dtypeRules() {
        Graph g = new Graph("m");
        Value a = in(g, f32(2, 2));
        Value h = in(g, DType.F16, 2, 2);
        rejects(g, "matmul", () -> g.matmul(a, h), "f32[2,2]", "f16[2,2]", "common type is f32");
        Value b = in(g, DType.BOOL, 2, 2);
        rejects(g, "matmul", () -> g.matmul(b, b), "bool[2,2]");
        Value c = in(g, DType.C64, 2, 2);
        rejects(g, "matmul", () -> g.matmul(c, c), "c64[2,2]");
    }

    @Test
    void matmul_declaredShape_checked() {
        Graph g = new Graph("m");
        Value x = in(g, f32(7, 2, 3));
        Value y = in(g, f32(3, 5));
        Value ok = g.matmul(x, y, f32(7, 2, 5));
        assertEquals(f32(7, 2, 5), ok.shape());
        assertSame(OpKind.MATMUL, ok.node().kind());
        rejects(g, "matmul", () -> g.matmul(x, y, f32(7, 2, 6)), "f32[7,2,6]", "f32[7,2,5]", "declared");
        rejects(g, "matmul", () -> g.matmul(x, y, s(DType.F16, 7, 2, 5)), "f16[7,2,5]", "f32[7,2,5]");
        // the inferred-shape rule still applies before the declared shape is compared
        rejects(g, "matmul", () -> g.matmul(y, x, f32(1)), "K=5", "K=2");
    }
}
