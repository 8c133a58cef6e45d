package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import org.junit.jupiter.api.Test;

/**
 * What the IR allows but the CPU has no kernel for is rejected at compile time, naming the node and the dtype:
 * the conformance suite skips exactly these cases on the CPU (see {@link CpuTestkitTest#skipReason}).
 */
class UnsupportedDtypesTest {
    @Test
    void reduce_complexIsRejectedAtCompile() {
        Graph g = new Graph("reduce");
        Value in = g.input("x", Shape.of(DType.C64, 3, 4));
        g.setOutputs(g.name(g.reduceSum(in, false, 1), "total"));
        try (Session s = new Session(Device.CPU)) {
            CompileException e = assertThrows(CompileException.class, () -> s.compile(g));
            assertTrue(e.getMessage().contains("reduce_sum 'total' has no kernel for c64"), e.getMessage());
        }
    }

    @Test
    void fusionProducts_inF64AreRejectedAtCompile() {
        ElementwiseProgram p = ElementwiseProgram.builder(2).binary(BinaryKind.MUL, 0, 1).unary(UnaryKind.EXP, 2).build();
        Graph g = new Graph("fused");
        Value a = g.input("a", Shape.of(DType.F64, 3));
        g.setOutputs(g.apply1(new Op.Fused(p), a, a));
        Graph mm = new Graph("fused_matmul");
        mm.setOutputs(mm.apply1(new Op.FusedMatMul(ElementwiseProgram.builder(1).unary(UnaryKind.RELU, 0).build()),
                mm.input("a", Shape.of(DType.F64, 2, 3)), mm.input("b", Shape.of(DType.F64, 3, 2))));
        try (Session s = new Session(Device.CPU)) {
            CompileException e = assertThrows(CompileException.class, () -> s.compile(g));
            assertTrue(e.getMessage().contains("f32 only") && e.getMessage().contains("f64"), e.getMessage());
            CompileException m = assertThrows(CompileException.class, () -> s.compile(mm));
            assertTrue(m.getMessage().contains("f32 only") && m.getMessage().contains("f64"), m.getMessage());
        }
    }
}
