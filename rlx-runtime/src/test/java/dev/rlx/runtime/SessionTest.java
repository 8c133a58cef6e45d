package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphVerificationException;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.spi.CompileRequest;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SessionTest {
    private static final Device DEVICE = Device.TPU;
    private FakeBackend fake;

    @BeforeEach
    void register() {
        fake = FakeBackend.full(DEVICE, false);
        BackendRegistry.global().register(DEVICE, () -> fake);
    }

    @AfterEach
    void unregister() {
        BackendRegistry.global().unregister(DEVICE);
    }

    /** x -> transpose (output), plus an unused input, an unused param and a dead node. */
    private static Graph withDeadCode() {
        Graph g = new Graph("dead");
        Value x = g.input("x", Shape.of(DType.F32, 1, 3));
        g.input("unused", Shape.of(DType.I32, 2));
        g.param("w", Shape.of(DType.F32, 3));
        g.exp(x);
        g.setOutputs(g.transpose(x, 1, 0));
        return g;
    }

    @Test
    void compile_invalidGraph_isRejectedBeforeTheBackend() {
        Graph g = new Graph("noout");
        g.input("x", Shape.of(DType.F32, 1));
        try (Session s = new Session(DEVICE)) {
            GraphVerificationException e = assertThrows(GraphVerificationException.class, () -> s.compile(g));
            assertTrue(e.getMessage().contains("@noout"), e.getMessage());
        }
        assertEquals(0, fake.compileCalls.get());
    }

    @Test
    void compile_defaults_dropDeadCodeButKeepInputsAndParams() {
        try (Session s = new Session(DEVICE); CompiledGraph c = s.compile(withDeadCode())) {
            CompileRequest r = fake.lastRequest;
            assertSame(c.graph(), r.graph());
            assertSame(OpRegistry.global(), r.ops());
            assertEquals(CompileOptions.defaults(), r.options());
            assertEquals(64, r.plan().alignment());
            assertSame(r.graph(), r.plan().graph());
            assertTrue(r.graph().nodes().stream().noneMatch(n -> n.kind() == OpKind.UNARY), r.graph().toString());
            assertEquals(List.of("x", "unused"), c.inputNames());
            assertEquals(List.of("w"), c.paramNames());
            assertEquals(1, c.kernelCount());
            // The unused input and param must still be set before a run.
            c.setInput("x", new float[] {1, 2, 3});
            assertTrue(assertThrows(BindingException.class, c::run).getMessage().contains("'unused'"));
            c.setInput("unused", new int[2]);
            c.setParam("w", new float[3]);
            c.run();
            assertEquals(1, fake.last().runs);
        }
    }

    @Test
    void compile_options_reachThePlanAndTheBackend() {
        CompileOptions o = CompileOptions.defaults().withAlignment(256).withThreads(3).withOptimize(false);
        try (Session s = new Session(DEVICE, o); CompiledGraph c = s.compile(withDeadCode())) {
            assertSame(o, s.defaults());
            CompileRequest r = fake.lastRequest;
            assertSame(o, r.options());
            assertEquals(256, r.plan().alignment());
            assertEquals(5, r.graph().size(), "without DCE the dead exp stays");
            assertEquals(2, c.kernelCount());
            r.plan().slots().values().forEach(slot -> assertEquals(0, slot.offset() % 256));
        }
    }

    @Test
    void compile_explicitOptions_overrideTheSessionDefaults() {
        try (Session s = new Session(DEVICE, CompileOptions.defaults().withAlignment(8))) {
            s.compile(withDeadCode()).close();
            assertEquals(8, fake.lastRequest.plan().alignment());
            s.compile(withDeadCode(), CompileOptions.defaults().withAlignment(32)).close();
            assertEquals(32, fake.lastRequest.plan().alignment());
        }
    }

    @Test
    void compiledGraph_staysUsableAfterTheSessionCloses() {
        CompiledGraph c;
        try (Session s = new Session(DEVICE)) {
            c = s.compile(withDeadCode());
        }
        assertTrue(fake.closed);
        try (c) {
            c.setInput("x", new float[] {4, 5, 6});
            c.setInput("unused", new int[2]);
            c.setParam("w", new float[3]);
            c.run();
            assertArrayEquals(new float[] {4, 5, 6}, c.output(0).toFloatArray());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -8, 3, 96})
    void compileOptions_alignmentNotAPowerOfTwo_isRejected(int a) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CompileOptions.defaults().withAlignment(a));
        assertTrue(e.getMessage().contains(String.valueOf(a)), e.getMessage());
    }

    @Test
    void compileOptions_negativeThreads_isRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CompileOptions.defaults().withThreads(-1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        assertEquals(new CompileOptions(64, 0, true, dev.rlx.opt.PrecisionPolicy.F32, RngOptions.defaults()),
                CompileOptions.defaults());
    }
}
