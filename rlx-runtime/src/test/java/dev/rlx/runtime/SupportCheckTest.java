package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.PrecisionPolicy;
import org.junit.jupiter.api.Test;

/** {@link Session#check}: which nodes a backend cannot run, and why, answered without compiling. */
class SupportCheckTest {
    /** A backend claiming every kind but with dtype rules: matmul in f32 only, cumsum never. */
    private static FakeBackend picky() {
        Capabilities caps = Capabilities.builder().claimPrimitives().claimCompositeUnary()
                .claim(OpKind.MATMUL, DType.F32)
                .refuse(OpKind.CUMSUM, "no cumsum", (op, in) -> "no cumsum kernel")
                .build();
        return new FakeBackend(Device.TPU, caps, false);
    }

    private static Graph graph(DType t) {
        Graph g = new Graph("mixed");
        Value x = g.input("x", Shape.of(t, 2, 3));
        Value w = g.param("w", Shape.of(t, 3, 4));
        Value y = g.name(g.matmul(x, w), "proj");
        g.setOutputs(g.name(g.cumsum(y, 1), "running"));
        return g;
    }

    @Test
    void check_listsEachNodeWithTheReason_andCompileRefusesTheSame() {
        FakeBackend b = picky();
        try (Session s = new Session(b, CompileOptions.defaults(), null)) {
            SupportReport f32 = s.check(graph(DType.F32));
            assertFalse(f32.supported());
            assertEquals(1, f32.unsupported().size(), f32.toString());
            UnsupportedOpException.Offender o = f32.firstUnsupported().orElseThrow();
            assertEquals(OpKind.CUMSUM, o.kind());
            assertEquals("running", o.name());
            assertEquals("no cumsum kernel", o.reason());

            SupportReport f64 = s.check(graph(DType.F64));
            assertEquals(2, f64.unsupported().size(), f64.toString());
            assertEquals("proj", f64.unsupported().get(0).name());
            assertTrue(f64.unsupported().get(0).reason().contains("no f64 matmul kernel (it runs f32)"),
                    f64.unsupported().get(0).reason());

            UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> s.compile(graph(DType.F64)));
            assertEquals(f64.unsupported(), e.offenders(), "compile refuses exactly what check reports");
            assertEquals(0, b.compileCalls.get());
        }
    }

    @Test
    void check_seesTheDtypesThePrecisionPolicyGives() {
        FakeBackend b = picky();
        Graph g = new Graph("plain");
        g.setOutputs(g.matmul(g.input("x", Shape.of(DType.F32, 2, 3)), g.param("w", Shape.of(DType.F32, 3, 4))));
        try (Session s = new Session(b, CompileOptions.defaults(), null)) {
            assertTrue(s.supportsGraph(g));
            // Under F16 the matmul is f16, which this backend refuses: it runs as an f32 matmul between casts.
            CompileOptions f16 = CompileOptions.defaults().withPrecision(PrecisionPolicy.F16);
            assertTrue(s.check(g, f16).supported(), s.check(g, f16).toString());
            try (CompiledGraph c = s.compile(g, f16)) {
                Graph seen = b.lastRequest.graph();
                assertTrue(seen.nodes().stream().anyMatch(n -> n.kind() == OpKind.MATMUL && n.inputs().get(0).dtype() == DType.F32)
                        && seen.nodes().stream().noneMatch(n -> n.kind() == OpKind.MATMUL && n.inputs().get(0).dtype() == DType.F16),
                        dev.rlx.ir.GraphPrinter.print(seen));
            }
            // A backend that cannot cast either has no way around it.
            FakeBackend strict = new FakeBackend(Device.TPU, Capabilities.builder().claimPrimitives()
                    .claim(OpKind.MATMUL, DType.F32).refuse(OpKind.CAST, "no casts", (op, in) -> "no cast kernel").build(), false);
            try (Session t = new Session(strict, CompileOptions.defaults(), null)) {
                SupportReport half = t.check(g, f16);
                assertFalse(half.supported());
                assertTrue(half.unsupported().stream().anyMatch(o -> o.kind() == OpKind.MATMUL && o.reason().contains("f16")),
                        half.toString());
            }
        }
    }
}
