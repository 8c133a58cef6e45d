package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.out;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** reduce, argmax/argmin, softmax/logSoftmax, cumsum and topK. */
class ReductionShapeTest {

    @Test
    void reduce_negativeAxes_normalisedAndSorted() {
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 3, 4, 5));
        Value y = g.reduceSum(x, false, -1, 1);
        assertEquals(f32(2, 4), y.shape());
        assertEquals(new Op.Reduce(ReduceKind.SUM, List.of(1, 3), false), y.node().op());
        Value k = g.reduceMax(x, true, 3, -4);
        assertEquals(f32(1, 3, 4, 1), k.shape());
        assertEquals(List.of(0, 3), ((Op.Reduce) k.node().op()).axes());
    }

    @Test
    void reduce_emptyAxes_meansAll() {
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 3, 4));
        assertEquals(f32(), g.reduceSum(x, false).shape());
        assertEquals(f32(1, 1, 1), g.reduceMin(x, true).shape());
        assertEquals(List.of(0, 1, 2), ((Op.Reduce) g.reduceProd(x, false).node().op()).axes());
        Value sc = in(g, f32());
        assertEquals(f32(), g.reduceSum(sc, true).shape(), "a scalar reduces to a scalar");
    }

    @Test
    void reduce_zeroSizeDims() {
        Graph g = new Graph("r");
        Value x = in(g, f32(0, 3));
        assertEquals(f32(3), g.reduceSum(x, false, 0).shape());
        assertEquals(f32(0, 1), g.reduceMax(x, true, 1).shape());
    }

    @Test
    void reduce_duplicateAxes_rejected() {
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 3));
        rejects(g, "reduce_sum", () -> g.reduceSum(x, false, 1, -1), "twice", "f32[2,3]");
        rejects(g, "reduce_max", () -> g.reduceMax(x, false, 0, 0), "twice");
    }

    @Test
    void reduce_axisOutOfRange_rejected() {
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 3));
        rejects(g, "reduce_sum", () -> g.reduceSum(x, false, 2), "axis 2", "f32[2,3]", "rank 2");
        rejects(g, "reduce_mean", () -> g.reduceMean(x, false, -3), "axis -3", "f32[2,3]");
    }

    @Test
    void reduce_meanIsFloatOnly_othersNumeric() {
        Graph g = new Graph("r");
        Value i = in(g, DType.I32, 2, 3);
        rejects(g, "reduce_mean", () -> g.reduceMean(i, false, 1), "i32[2,3]", "float");
        assertEquals(s(DType.I32, 2), g.reduceSum(i, false, 1).shape());
        assertEquals(s(DType.I32, 3), g.reduceProd(i, false, 0).shape());
        Value b = in(g, DType.BOOL, 2);
        for (ReduceKind k : ReduceKind.values()) {
            rejects(g, "reduce_" + k.label(), () -> g.reduce(k, b, false), "bool[2]");
        }
        assertEquals(s(DType.BF16), g.reduceMean(in(g, DType.BF16, 4), false).shape());
    }

    @Test
    void reduce_storedAxesMustBeSortedDistinctNormalised() {
        rejects("reduce_sum", () -> out(new Op.Reduce(ReduceKind.SUM, List.of(1, 0), false), f32(2, 3)), "[1, 0]");
        rejects("reduce_sum", () -> out(new Op.Reduce(ReduceKind.SUM, List.of(1, 1), false), f32(2, 3)), "[1, 1]");
        rejects("reduce_sum", () -> out(new Op.Reduce(ReduceKind.SUM, List.of(-1), false), f32(2, 3)), "axis -1");
    }

    @ParameterizedTest
    @EnumSource(Op.ArgReduce.Kind.class)
    void argReduce_givesI64_withAxisRemovedOrKept(Op.ArgReduce.Kind kind) {
        Graph g = new Graph("a");
        Value x = in(g, DType.F16, 2, 3, 4);
        boolean max = kind == Op.ArgReduce.Kind.ARGMAX;
        Value y = max ? g.argMax(x, -2, false) : g.argMin(x, -2, false);
        assertEquals(s(DType.I64, 2, 4), y.shape());
        assertEquals(new Op.ArgReduce(kind, 1, false), y.node().op());
        Value k = max ? g.argMax(x, 0, true) : g.argMin(x, 0, true);
        assertEquals(s(DType.I64, 1, 3, 4), k.shape());
        Value ints = in(g, DType.U8, 5);
        assertEquals(s(DType.I64), (max ? g.argMax(ints, 0, false) : g.argMin(ints, 0, false)).shape());
    }

    @Test
    void argReduce_emptyAxis_rejected() {
        Graph g = new Graph("a");
        Value x = in(g, f32(2, 0));
        rejects(g, "argmax", () -> g.argMax(x, 1, false), "f32[2,0]", "empty");
        rejects(g, "argmin", () -> g.argMin(x, -1, true), "f32[2,0]", "empty");
        assertEquals(s(DType.I64, 0), g.argMax(x, 0, false).shape(), "the other axis may be empty");
    }

    @Test
    void argReduce_badOperand_rejected() {
        Graph g = new Graph("a");
        Value b = in(g, DType.BOOL, 3);
        rejects(g, "argmax", () -> g.argMax(b, 0, false), "bool[3]");
        Value sc = in(g, f32());
        rejects(g, "argmin", () -> g.argMin(sc, 0, false), "axis 0", "f32[]", "rank 0");
    }

    @Test
    void softmax_floatOnly_shapePreserved() {
        Graph g = new Graph("s");
        Value x = in(g, DType.BF16, 2, 7);
        assertEquals(s(DType.BF16, 2, 7), g.softmax(x, -1).shape());
        assertEquals(new Op.Softmax(1), g.softmax(x, -1).node().op());
        assertEquals(new Op.LogSoftmax(0), g.logSoftmax(x, -2).node().op());
        Value i = in(g, DType.I32, 2, 7);
        rejects(g, "softmax", () -> g.softmax(i, 1), "i32[2,7]", "float");
        rejects(g, "log_softmax", () -> g.logSoftmax(i, 1), "i32[2,7]", "float");
        rejects(g, "softmax", () -> g.softmax(x, 2), "axis 2", "bf16[2,7]");
    }

    @Test
    void cumsum_numeric_axisNormalised() {
        Graph g = new Graph("c");
        Value x = in(g, DType.I64, 3, 4);
        Value y = g.cumsum(x, -1, true, true);
        assertEquals(s(DType.I64, 3, 4), y.shape());
        assertEquals(new Op.Cumsum(1, true, true), y.node().op());
        assertEquals(new Op.Cumsum(0, false, false), g.cumsum(x, 0).node().op());
        Value b = in(g, DType.BOOL, 3);
        rejects(g, "cumsum", () -> g.cumsum(b, 0), "bool[3]");
        rejects(g, "cumsum", () -> g.cumsum(x, 2), "axis 2", "i64[3,4]");
    }

    @Test
    void topK_twoOutputs_valuesAndI64Indices() {
        Graph g = new Graph("t");
        Value x = in(g, DType.F16, 2, 10);
        List<Value> r = g.topK(x, 3, -1, true);
        assertEquals(2, r.size());
        assertEquals(s(DType.F16, 2, 3), r.get(0).shape());
        assertEquals(s(DType.I64, 2, 3), r.get(1).shape());
        assertEquals(1, r.get(1).outputIndex());
        assertEquals(new Op.TopK(3, 1, true), r.get(0).node().op());
    }

    @Test
    void topK_kRange() {
        Graph g = new Graph("t");
        Value x = in(g, f32(4, 5));
        assertEquals(f32(0, 5), g.topK(x, 0, 0, false).get(0).shape(), "k = 0 is allowed");
        assertEquals(f32(4, 5), g.topK(x, 5, 1, false).get(0).shape(), "k = dim is allowed");
        rejects(g, "top_k", () -> g.topK(x, 6, 1, true), "k=6", "f32[4,5]");
        rejects(g, "top_k", () -> g.topK(x, -1, 1, true), "k=-1", "f32[4,5]");
        Value b = in(g, DType.BOOL, 3);
        rejects(g, "top_k", () -> g.topK(b, 1, 0, true), "bool[3]");
    }
}
