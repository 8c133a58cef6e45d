package dev.rlx.cpu;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Attrs;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.CustomOpException;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.OpRegistry;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.UnsupportedOpException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A user registers a Java kernel and shape function for a custom op and runs it on the CPU. */
class CustomOpTest {
    @AfterEach
    void cleanUp() {
        OpRegistry.global().remove("clip");
        OpRegistry.global().remove("minmax");
        OpRegistry.global().remove("no_kernel");
    }

    @Test
    void custom_clipWithAttributes_runsInsideAGraph() {
        // The README example: clip(x, lo, hi) with the bounds as attributes.
        OpRegistry.global().register("clip", (in, a) -> List.of(in.get(0)), Device.CPU, (in, out, a) -> {
            float lo = (float) a.getDouble("lo");
            float hi = (float) a.getDouble("hi");
            for (long i = 0; i < in.get(0).size(); i++) {
                float v = in.get(0).data().getAtIndex(JAVA_FLOAT, i);
                out.get(0).data().setAtIndex(JAVA_FLOAT, i, Math.min(hi, Math.max(lo, v)));
            }
        });
        Graph g = new Graph("custom");
        Value x = g.input("x", Shape.of(DType.F32, 5));
        Value y = OpRegistry.global().apply(g, "clip", Attrs.of("lo", -1.0, "hi", 2.0), g.mul(x, g.scalar(2f))).get(0);
        g.setOutputs(g.add(y, g.scalar(1f)));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("x", new float[] {-3, -0.25f, 0.5f, 0.75f, 9});
            c.run();
            assertArrayEquals(new float[] {0, 0.5f, 2, 2.5f, 3}, c.output(0).toFloatArray());
        }
    }

    @Test
    void custom_multipleOutputs_shapesFromShapeFunction() {
        OpRegistry.global().register("minmax", (in, a) -> List.of(Shape.of(DType.F32, 1), Shape.of(DType.F32, 1)),
                Device.CPU, (in, out, a) -> {
                    float mn = Float.POSITIVE_INFINITY;
                    float mx = Float.NEGATIVE_INFINITY;
                    for (long i = 0; i < in.get(0).size(); i++) {
                        float v = in.get(0).data().getAtIndex(JAVA_FLOAT, i);
                        mn = Math.min(mn, v);
                        mx = Math.max(mx, v);
                    }
                    out.get(0).data().setAtIndex(JAVA_FLOAT, 0, mn);
                    out.get(1).data().setAtIndex(JAVA_FLOAT, 0, mx);
                });
        Graph g = new Graph("mm");
        List<Value> r = OpRegistry.global().apply(g, "minmax", Attrs.EMPTY, g.input("x", Shape.of(DType.F32, 4)));
        g.setOutputs(r);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("x", new float[] {3, -4, 7, 0.5f});
            c.run();
            assertArrayEquals(new float[] {-4}, c.output(0).toFloatArray());
            assertArrayEquals(new float[] {7}, c.output(1).toFloatArray());
        }
    }

    @Test
    void custom_survivesThePasses_unlessDeclaredPure() {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        OpRegistry.global().register("minmax", (in, a) -> List.of(in.get(0)), Device.CPU, (in, out, a) -> {
            calls.incrementAndGet();
            dev.rlx.runtime.HostTensor x = in.get(0);
            java.lang.foreign.MemorySegment.copy(x.data(), 0, out.get(0).data(), 0, x.shape().byteSize());
        });
        Graph g = new Graph("effects");
        Value x = g.input("x", Shape.of(DType.F32, 3));
        OpRegistry.global().apply(g, "minmax", Attrs.EMPTY, x);                 // unused, impure: still runs
        Value a = OpRegistry.global().apply(g, "minmax", Attrs.EMPTY, x).get(0); // equal calls are not merged
        Value b = OpRegistry.global().apply(g, "minmax", Attrs.EMPTY, x).get(0);
        g.setOutputs(g.exp(g.add(g.add(a, b), g.scalar(0f))));                   // around it, fusion and folding
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("x", new float[] {0, 1, 2});
            c.run();
            assertEquals(3, calls.get(), "every impure call runs once per run");
            assertArrayEquals(new float[] {1, (float) Math.exp(2), (float) Math.exp(4)}, c.output(0).toFloatArray(), 1e-5f);
        }
        OpRegistry.global().declarePure("minmax");
        Graph p = new Graph("pure");
        Value px = p.input("x", Shape.of(DType.F32, 3));
        OpRegistry.global().apply(p, "minmax", Attrs.EMPTY, px);                 // unused and pure: dropped
        Value pa = OpRegistry.global().apply(p, "minmax", Attrs.EMPTY, px).get(0);
        Value pb = OpRegistry.global().apply(p, "minmax", Attrs.EMPTY, px).get(0); // merged with pa
        p.setOutputs(p.add(pa, pb));
        calls.set(0);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(p)) {
            c.setInput("x", new float[] {0, 1, 2});
            c.run();
            assertEquals(1, calls.get(), "a pure op runs once for equal calls and not at all when unused");
            assertArrayEquals(new float[] {0, 2, 4}, c.output(0).toFloatArray());
        }
    }

    @Test
    void custom_withoutKernel_rejectedAtCompileTime() {
        OpRegistry.global().define("no_kernel", (in, a) -> List.of(in.get(0)));
        Graph g = new Graph("nk");
        g.setOutputs(OpRegistry.global().apply(g, "no_kernel", Attrs.EMPTY, g.input("x", Shape.of(DType.F32, 2))));
        try (Session s = new Session(Device.CPU)) {
            UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> s.compile(g));
            assertEquals(1, e.offenders().size());
            assertEquals(OpKind.CUSTOM, e.offenders().get(0).kind());
            assertTrue(e.getMessage().contains("no kernel for custom op 'no_kernel' on CPU"), e.getMessage());
        }
    }

    @Test
    void custom_kernelFailure_namesTheOp() {
        OpRegistry.global().register("clip", (in, a) -> List.of(in.get(0)), Device.CPU, (in, out, a) -> {
            throw new IllegalStateException("boom");
        });
        Graph g = new Graph("f");
        g.setOutputs(OpRegistry.global().apply(g, "clip", Attrs.EMPTY, g.input("x", Shape.of(DType.F32, 2))));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("x", new float[] {1, 2});
            CustomOpException e = assertThrows(CustomOpException.class, c::run);
            assertEquals("clip", e.opName());
            assertTrue(e.getMessage().contains("boom"), e.getMessage());
        }
    }
}
