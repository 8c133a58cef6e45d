package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** reshape, transpose, slice/narrow, concat, expand, gather and scatterAdd. */
class MovementShapeTest {

    // ---------------------------------------------------------------- reshape

    @Test
    void reshape_inferMinusOne() {
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 3, 4));
        assertEquals(f32(6, 4), g.reshape(x, -1, 4).shape());
        assertEquals(f32(24), g.reshape(x, -1).shape());
        assertEquals(f32(2, 1, 12), g.reshape(x, 2, 1, -1).shape());
        assertEquals(new Op.Reshape(List.of(2, 1, 12)), g.reshape(x, 2, 1, -1).node().op(), "stored resolved");
        Value sc = in(g, f32());
        assertEquals(f32(1, 1), g.reshape(sc, 1, -1).shape());
        assertEquals(f32(), g.reshape(g.reshape(sc, 1), new int[0]).shape());
    }

    @Test
    void reshape_zeroSize() {
        Graph g = new Graph("r");
        Value x = in(g, f32(0, 3));
        assertEquals(f32(3, 0, 1), g.reshape(x, 3, 0, 1).shape());
        // numpy also refuses to infer -1 when the other dims hold zero elements
        rejects(g, "reshape", () -> g.reshape(x, -1, 0), "-1", "f32[0,3]");
    }

    @Test
    void reshape_twoMinusOnes_rejected() {
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 3));
        rejects(g, "reshape", () -> g.reshape(x, -1, -1), "only one dim may be -1", "[-1, -1]");
    }

    @Test
    void reshape_countMismatch_rejected() {
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 3));
        rejects(g, "reshape", () -> g.reshape(x, 4), "f32[2,3]", "f32[4]");
        rejects(g, "reshape", () -> g.reshape(x, -1, 4), "f32[2,3]", "[-1, 4]");
        rejects(g, "reshape", () -> g.reshape(x, 3, -2), "negative");
    }

    @Test
    void reshape_inferredDimTooLargeForAnInt_rejected() {
        Graph g = new Graph("r");
        // 65536 * 65536 = 2^32 elements: a valid shape, but a single dim cannot hold 2^32.
        Value x = in(g, s(DType.I8, 65536, 65536));
        rejects(g, "reshape", () -> g.reshape(x, -1), "i8[65536,65536]");
        assertEquals(s(DType.I8, 4, 1 << 30), g.reshape(x, 4, -1).shape());
    }

    // ---------------------------------------------------------------- transpose

    @Test
    void transpose_permutesDims() {
        Graph g = new Graph("t");
        Value x = in(g, f32(2, 3, 4));
        assertEquals(f32(4, 2, 3), g.transpose(x, 2, 0, 1).shape());
        assertEquals(f32(2, 4, 3), g.swapAxes(x, -1, 1).shape());
        assertEquals(new Op.Transpose(List.of(0, 2, 1)), g.swapAxes(x, 1, 2).node().op());
        assertEquals(f32(), g.transpose(in(g, f32())).shape());
    }

    @ParameterizedTest(name = "perm {0}")
    @CsvSource(delimiter = ';', value = {"0,1", "0,0,1", "0,1,3", "-1,0,1", "2,2,0", "0,1,2,3"})
    void transpose_badPermutation_rejected(String perm) {
        Graph g = new Graph("t");
        Value x = in(g, f32(2, 3, 4));
        String listed = "[" + perm.replace(",", ", ") + "]"; // how a List<Integer> prints
        rejects(g, "transpose", () -> g.transpose(x, ElementwiseShapeTest.dims(perm)), listed, "permutation");
    }

    // ---------------------------------------------------------------- slice / narrow

    @Test
    void slice_positiveAndNegativeSteps() {
        Graph g = new Graph("s");
        Value x = in(g, f32(3, 10));
        assertEquals(f32(3, 4), g.slice(x, 1, 1, 4, 2).shape()); // indices 1,3,5,7
        assertEquals(f32(3, 5), g.slice(x, -1, 9, 5, -2).shape()); // indices 9,7,5,3,1
        assertEquals(f32(3, 10), g.slice(x, 1, 9, 10, -1).shape()); // full reversal
        assertEquals(f32(1, 10), g.narrow(x, 0, 2, 1).shape());
        assertEquals(f32(3, 0), g.narrow(x, 1, 0, 0).shape());
        assertEquals(new Op.Slice(1, 9, 5, -2), g.slice(x, -1, 9, 5, -2).node().op());
    }

    @Test
    void slice_bounds_rejected() {
        Graph g = new Graph("s");
        Value x = in(g, f32(3, 10));
        rejects(g, "slice", () -> g.narrow(x, 1, 8, 3), "index 10", "f32[3,10]"); // 8,9,10
        rejects(g, "slice", () -> g.slice(x, 1, 1, 6, 2), "index 11", "f32[3,10]"); // 1,3,...,11
        rejects(g, "slice", () -> g.slice(x, 1, 3, 5, -1), "index -1", "f32[3,10]"); // 3,2,1,0,-1
        rejects(g, "slice", () -> g.narrow(x, 1, -1, 2), "start -1");
        rejects(g, "slice", () -> g.narrow(x, 1, 10, 1), "start 10");
        rejects(g, "slice", () -> g.slice(x, 1, 0, 2, 0), "step");
        rejects(g, "slice", () -> g.narrow(x, 1, 0, -1), "length");
        rejects(g, "slice", () -> g.narrow(x, 2, 0, 1), "axis 2", "f32[3,10]");
    }

    // ---------------------------------------------------------------- concat

    @Test
    void concat_sumsTheAxis() {
        Graph g = new Graph("c");
        Value a = in(g, f32(2, 3));
        Value b = in(g, f32(2, 5));
        Value z = in(g, f32(2, 0));
        assertEquals(f32(2, 8), g.concat(-1, a, b, z).shape());
        assertEquals(f32(2, 3), g.concat(1, a).shape());
        assertEquals(f32(4, 3), g.concat(0, a, a).shape());
        assertEquals(new Op.Concat(1), g.concat(-1, a, b).node().op());
    }

    @Test
    void concat_mismatches_rejected() {
        Graph g = new Graph("c");
        Value a = in(g, f32(2, 3));
        Value r3 = in(g, f32(2, 3, 1));
        Value d = in(g, f32(4, 3));
        Value h = in(g, DType.F16, 2, 3);
        rejects(g, "concat", () -> g.concat(1, a, r3), "f32[2,3]", "f32[2,3,1]", "rank");
        rejects(g, "concat", () -> g.concat(1, a, d), "f32[2,3]", "f32[4,3]", "dim 0");
        rejects(g, "concat", () -> g.concat(0, a, h), "f32[2,3]", "f16[2,3]");
        rejects(g, "concat", () -> g.concat(0), "at least one");
        rejects(g, "concat", () -> g.concat(2, a, a), "axis 2", "f32[2,3]");
        Value sc = in(g, f32());
        rejects(g, "concat", () -> g.concat(0, sc, sc), "axis 0", "f32[]");
    }

    // ---------------------------------------------------------------- expand

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ';', value = {"3,1; 2,3,4", "3; 2,3", "; 2,2", "1; 0", "1,1; 1,1", "2,1; 2,0"})
    void expand_broadcastTo(String from, String to) {
        Graph g = new Graph("e");
        Value x = in(g, f32(ElementwiseShapeTest.dims(from)));
        assertEquals(f32(ElementwiseShapeTest.dims(to)), g.expand(x, ElementwiseShapeTest.dims(to)).shape());
    }

    @ParameterizedTest(name = "{0} -/-> {1}")
    @CsvSource(delimiter = ';', value = {"2; 3", "1,3; 3", "0; 1", "3,2; 3,1", "2; "})
    void expand_notBroadcastable_rejected(String from, String to) {
        Graph g = new Graph("e");
        Shape fs = f32(ElementwiseShapeTest.dims(from));
        Shape ts = f32(ElementwiseShapeTest.dims(to));
        Value x = in(g, fs);
        rejects(g, "expand", () -> g.expand(x, ElementwiseShapeTest.dims(to)), fs.toString(), ts.toString());
    }

    @Test
    void expand_negativeTarget_rejectedNamingExpand() {
        Graph g = new Graph("e");
        Value x = in(g, f32(1));
        rejects(g, "expand", () -> g.expand(x, 2, -1), "-1");
    }

    // ---------------------------------------------------------------- gather / scatterAdd

    @Test
    void gather_onnxOutputDims() {
        Graph g = new Graph("g");
        Value data = in(g, f32(5, 6, 7));
        Value idx = in(g, DType.I64, 2, 3);
        assertEquals(f32(2, 3, 6, 7), g.gather(data, idx, 0).shape());
        assertEquals(f32(5, 2, 3, 7), g.gather(data, idx, 1).shape());
        assertEquals(f32(5, 6, 2, 3), g.gather(data, idx, -1).shape());
        Value scalarIdx = in(g, DType.I32);
        assertEquals(f32(5, 7), g.gather(data, scalarIdx, 1).shape(), "a scalar index removes the axis");
        Value empty = in(g, DType.I32, 0);
        assertEquals(f32(5, 0, 7), g.gather(data, empty, 1).shape());
    }

    @Test
    void gather_indexDtype_rejected() {
        Graph g = new Graph("g");
        Value data = in(g, f32(5, 6));
        for (DType t : List.of(DType.F32, DType.I16, DType.U32, DType.U8, DType.BOOL)) {
            Value idx = in(g, t, 2);
            rejects(g, "gather", () -> g.gather(data, idx, 0), t.label() + "[2]", "i32 or i64");
        }
        Value idx = in(g, DType.I64, 2);
        rejects(g, "gather", () -> g.gather(data, idx, 2), "axis 2", "f32[5,6]");
    }

    @Test
    void scatterAdd_rules() {
        Graph g = new Graph("s");
        Value data = in(g, f32(4, 5));
        Value idx = in(g, DType.I64, 2, 5);
        Value upd = in(g, f32(2, 5));
        assertEquals(f32(4, 5), g.scatterAdd(data, idx, upd, 0).shape());
        assertEquals(new Op.ScatterAdd(1), g.scatterAdd(data, in(g, DType.I32, 4, 2), in(g, f32(4, 2)), -1).node().op());

        Value badIdx = in(g, DType.F32, 2, 5);
        rejects(g, "scatter_add", () -> g.scatterAdd(data, badIdx, upd, 0), "f32[2,5]", "i32 or i64");
        Value updF16 = in(g, DType.F16, 2, 5);
        rejects(g, "scatter_add", () -> g.scatterAdd(data, idx, updF16, 0), "f32[4,5]", "f16[2,5]");
        Value upd3 = in(g, f32(2, 4));
        rejects(g, "scatter_add", () -> g.scatterAdd(data, idx, upd3, 0), "i64[2,5]", "f32[2,4]");
        Value idxR1 = in(g, DType.I64, 5);
        Value updR1 = in(g, f32(5));
        rejects(g, "scatter_add", () -> g.scatterAdd(data, idxR1, updR1, 0), "i64[5]", "f32[4,5]");
        Value idxWide = in(g, DType.I64, 2, 6);
        Value updWide = in(g, f32(2, 6));
        rejects(g, "scatter_add", () -> g.scatterAdd(data, idxWide, updWide, 0), "i64[2,6]", "f32[4,5]", "dim 1");
        Value bools = in(g, DType.BOOL, 4, 5);
        Value updB = in(g, DType.BOOL, 2, 5);
        rejects(g, "scatter_add", () -> g.scatterAdd(bools, idx, updB, 0), "bool[4,5]");
    }
}
