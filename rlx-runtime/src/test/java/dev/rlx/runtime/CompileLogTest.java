package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code RLX_VERBOSE}: the compile log on standard error, and nothing when it is off. */
class CompileLogTest {
    @AfterEach
    void reset() {
        System.clearProperty("RLX_VERBOSE");
        BackendRegistry.global().unregister(Device.TPU);
    }

    private static Graph graph() {
        Graph g = new Graph("logged");
        Value x = g.input("x", Shape.of(DType.F32, 4, 8));
        Value w = g.param("w", Shape.of(DType.F32, 8, 8));
        g.setOutputs(g.relu(g.matmul(x, w)));
        return g;
    }

    private static String stderrOf(Supplier<CompiledGraph> compile) {
        PrintStream saved = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try (CompiledGraph c = compile.get()) {
            assertEquals(1, c.outputCount());
        } finally {
            System.setErr(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void verbose1_logsPassesPlanKernelsAndWeights_verbose0_logsNothing() {
        FakeBackend fake = FakeBackend.full(Device.TPU, false);
        BackendRegistry.global().register(Device.TPU, () -> fake);
        try (Session s = new Session(Device.TPU, CompileOptions.defaults(), null)) {
            assertEquals("", stderrOf(() -> s.compile(graph())), "off by default");
            System.setProperty("RLX_VERBOSE", "1");
            String log = stderrOf(() -> s.compile(graph()));
            assertTrue(log.contains("rlx: @logged pass fold") || log.contains("rlx: @logged pass simplify"), log);
            assertTrue(log.contains("pass decompose"), log);
            assertTrue(log.contains("planned") && log.contains("params 256 bytes bound by reference"), log);
            assertTrue(log.contains("built on fake-tpu") && log.contains("kernels") && log.contains("256 bytes"), log);
            assertTrue(!log.contains("%0 input"), "level 1 prints no graphs:\n" + log);
            System.setProperty("RLX_VERBOSE", "2");
            assertTrue(stderrOf(() -> s.compile(graph())).contains("matmul"), "level 2 prints the graph after each pass");
        }
    }
}
