package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Attrs;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.ShapeException;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpRegistryTest {
    private static final HostKernel NOOP = (in, out, a) -> { };

    /** Output: the first operand with its last dim multiplied by attribute "factor". */
    private static final ShapeFunction WIDEN = (in, attrs) -> {
        Shape x = in.get(0);
        long factor = attrs.getLong("factor");
        return List.of(x.withDim(-1, (int) (x.dim(-1) * factor)), Shape.scalar(DType.I32));
    };

    @Test
    void apply_definedOp_buildsACustomNodeWithShapesFromTheShapeFunction() {
        OpRegistry ops = new OpRegistry();
        List<List<Shape>> seen = new ArrayList<>();
        ops.define("widen", (in, attrs) -> {
            seen.add(in);
            return WIDEN.outputShapes(in, attrs);
        });
        Graph g = new Graph("g");
        Value x = g.input("x", Shape.of(DType.F32, 2, 3));
        Value y = g.input("y", Shape.of(DType.I8, 5));
        Attrs attrs = Attrs.of("factor", 4);

        List<Value> outs = ops.apply(g, "widen", attrs, x, y);

        assertEquals(List.of(List.of(x.shape(), y.shape())), seen);
        assertEquals(List.of(Shape.of(DType.F32, 2, 12), Shape.scalar(DType.I32)), outs.stream().map(Value::shape).toList());
        Node n = outs.get(0).node();
        assertEquals(OpKind.CUSTOM, n.kind());
        Op.Custom c = (Op.Custom) n.op();
        assertEquals("widen", c.name());
        assertEquals(attrs, c.attrs());
        assertEquals(List.of(x, y), n.inputs());
        g.setOutputs(outs);
        assertEquals(List.of(), g.verify());
    }

    @Test
    void apply_undefinedOp_namesItAndTheDefinedOnes() {
        OpRegistry ops = new OpRegistry();
        ops.define("b_op", WIDEN);
        ops.define("a_op", WIDEN);
        Graph g = new Graph("g");
        Value x = g.input("x", Shape.of(DType.F32, 2));
        CustomOpException e = assertThrows(CustomOpException.class,
                () -> ops.apply(g, "missing_op", Attrs.EMPTY, x));
        assertTrue(e.getMessage().contains("'missing_op'"), e.getMessage());
        assertTrue(e.getMessage().contains("[a_op, b_op]"), e.getMessage());
        assertEquals(1, g.size(), "nothing is appended");
    }

    @Test
    void apply_shapeFunctionRejectingOperands_appendsNothing() {
        OpRegistry ops = new OpRegistry();
        ops.define("strict", (in, a) -> {
            throw new ShapeException("[strict] needs a matrix but got " + in.get(0));
        });
        Graph g = new Graph("g");
        Value x = g.input("x", Shape.of(DType.F32, 2));
        ShapeException e = assertThrows(ShapeException.class, () -> ops.apply(g, "strict", Attrs.EMPTY, x));
        assertTrue(e.getMessage().contains("f32[2]"), e.getMessage());
        assertEquals(1, g.size());
    }

    @Test
    void kernel_isLookedUpPerDevice() {
        OpRegistry ops = new OpRegistry();
        HostKernel tpu = (in, out, a) -> { };
        HostKernel cpu = (in, out, a) -> { };
        ops.register("k", WIDEN, Device.TPU, tpu);
        ops.registerKernel("k", Device.CPU, cpu);
        assertSame(tpu, ops.kernel("k", Device.TPU).orElseThrow());
        assertSame(cpu, ops.kernel("k", Device.CPU).orElseThrow());
        assertTrue(ops.kernel("k", Device.CUDA).isEmpty());
        assertTrue(ops.kernel("other", Device.TPU).isEmpty());
        assertSame(WIDEN, ops.shapeFunction("k").orElseThrow());
    }

    @Test
    void register_again_replacesTheEntry() {
        OpRegistry ops = new OpRegistry();
        HostKernel second = (in, out, a) -> { };
        ShapeFunction other = (in, a) -> List.of(in.get(0));
        ops.register("k", WIDEN, Device.TPU, NOOP);
        ops.register("k", other, Device.TPU, second);
        assertSame(second, ops.kernel("k", Device.TPU).orElseThrow());
        assertSame(other, ops.shapeFunction("k").orElseThrow());
        assertEquals(List.of("k"), ops.names());
    }

    @Test
    void remove_dropsTheShapeFunctionAndEveryKernel() {
        OpRegistry ops = new OpRegistry();
        ops.register("gone", WIDEN, Device.TPU, NOOP);
        ops.registerKernel("gone", Device.CPU, NOOP);
        ops.register("kept", WIDEN, Device.TPU, NOOP);
        ops.remove("gone");
        assertEquals(List.of("kept"), ops.names());
        assertTrue(ops.shapeFunction("gone").isEmpty());
        assertTrue(ops.kernel("gone", Device.TPU).isEmpty());
        assertTrue(ops.kernel("gone", Device.CPU).isEmpty());
        assertTrue(ops.kernel("kept", Device.TPU).isPresent());
        ops.remove("never_defined"); // no-op
        assertEquals(List.of("kept"), ops.names());
    }

    @Test
    void remove_leavesOpsWhoseNameMerelyStartsWithTheRemovedName() {
        OpRegistry ops = new OpRegistry();
        ops.register("clip", WIDEN, Device.TPU, NOOP);
        ops.register("clip@v2", WIDEN, Device.TPU, NOOP);
        ops.register("clip_fast", WIDEN, Device.CPU, NOOP);
        ops.remove("clip");
        assertEquals(List.of("clip@v2", "clip_fast"), ops.names());
        assertTrue(ops.kernel("clip@v2", Device.TPU).isPresent(), "removing 'clip' must not drop the kernels of 'clip@v2'");
        assertTrue(ops.kernel("clip_fast", Device.CPU).isPresent());
    }

    @Test
    void kernelKeys_doNotCollideAcrossNamesAndDevices() {
        OpRegistry ops = new OpRegistry();
        HostKernel a = (in, out, x) -> { };
        ops.registerKernel("op@TPU", Device.CPU, a);
        assertTrue(ops.kernel("op", Device.TPU).isEmpty());
        assertSame(a, ops.kernel("op@TPU", Device.CPU).orElseThrow());
    }

    @Test
    void names_areSorted() {
        OpRegistry ops = new OpRegistry();
        ops.define("zeta", WIDEN);
        ops.define("alpha", WIDEN);
        ops.define("mid", WIDEN);
        assertEquals(List.of("alpha", "mid", "zeta"), ops.names());
    }
}
