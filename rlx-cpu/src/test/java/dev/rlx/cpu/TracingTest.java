package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RLX_TRACE and RLX_TRACE_FILE (set here as system properties, which take precedence over the environment). */
class TracingTest {
    private final PrintStream err = System.err;

    @AfterEach
    void reset() {
        System.clearProperty("RLX_TRACE");
        System.clearProperty("RLX_TRACE_FILE");
        System.setErr(err);
    }

    private static Graph graph() {
        return graph("traced");
    }

    private static Graph graph(String name) {
        Graph g = new Graph(name);
        Value x = g.input("x", Shape.of(DType.F32, 8, 8));
        Value w = g.param("w", Shape.of(DType.F32, 8, 8));
        g.setOutputs(g.softmax(g.matmul(x, w), -1));
        return g;
    }

    /** Compiles (without the shared cache), runs {@code runs} times, closes; returns what went to stderr. */
    private static String runTraced(int runs) {
        return runTraced(graph(), runs);
    }

    private static String runTraced(Graph g, int runs) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (Session s = new Session(Device.CPU, CompileOptions.defaults(), null); CompiledGraph c = s.compile(g)) {
            c.setParam("w", new float[64]);
            c.setInput("x", new float[64]);
            for (int i = 0; i < runs; i++) {
                c.run();
            }
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void trace1_printsAPerKernelSummaryAtClose() {
        System.setProperty("RLX_TRACE", "1");
        String out = runTraced(3);
        assertTrue(out.contains("@traced: 2 kernels"), out);
        assertTrue(out.matches("(?s).*\\s3\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+%\\s+%\\d+ matmul.*"), out);
        assertTrue(out.contains("softmax"), out);
        assertTrue(!out.contains(" us\n") || !out.contains("[rlx trace] @traced %"), "no per-call lines at level 1");
    }

    @Test
    void trace2_alsoLogsEveryCall() {
        System.setProperty("RLX_TRACE", "2");
        String out = runTraced(2);
        long perCall = out.lines().filter(l -> l.startsWith("[rlx trace] @traced %")).count();
        assertEquals(4, perCall, "2 kernels x 2 runs:\n" + out);
    }

    @Test
    void traceFile_isAChromeTraceOfEveryCall(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trace.json");
        System.setProperty("RLX_TRACE_FILE", file.toString());
        String out = runTraced(5);
        assertEquals("", out, "no summary unless RLX_TRACE is set");
        Map<String, Integer> names = new HashMap<>();
        int events = 0;
        try (JsonParser p = new JsonFactory().createParser(Files.readString(file))) {
            String field = null;
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME) {
                    field = p.currentName();
                } else if (p.currentToken() == JsonToken.VALUE_STRING && "name".equals(field)) {
                    names.merge(p.getText(), 1, Integer::sum);
                    events++;
                } else if (p.currentToken() == JsonToken.VALUE_STRING && "ph".equals(field)) {
                    assertEquals("X", p.getText());
                }
            }
        }
        assertEquals(10, events, "2 kernels x 5 runs");
        assertTrue(names.keySet().stream().anyMatch(n -> n.contains("matmul")), names.toString());
    }

    @Test
    void traceFile_keepsEveryGraphOfTheProcess(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trace.json");
        System.setProperty("RLX_TRACE_FILE", file.toString());
        runTraced(graph("first"), 2);
        runTraced(graph("second"), 3);
        Map<String, Integer> perGraph = new HashMap<>();
        double lastFirst = 0;
        double firstSecond = Double.MAX_VALUE;
        try (JsonParser p = new JsonFactory().createParser(Files.readString(file))) {
            String field = null;
            String cat = null;
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME) {
                    field = p.currentName();
                } else if ("cat".equals(field) && p.currentToken() == JsonToken.VALUE_STRING) {
                    cat = p.getText();
                    perGraph.merge(cat, 1, Integer::sum);
                } else if ("ts".equals(field) && p.currentToken().isNumeric()) {
                    double ts = p.getDoubleValue();
                    if ("first".equals(cat)) {
                        lastFirst = Math.max(lastFirst, ts);
                    } else {
                        firstSecond = Math.min(firstSecond, ts);
                    }
                }
            }
        }
        assertEquals(Map.of("first", 4, "second", 6), perGraph, "2 kernels x 2 runs, then 2 kernels x 3 runs");
        assertTrue(lastFirst < firstSecond, "one clock for the whole process: " + lastFirst + " vs " + firstSecond);
    }

    @Test
    void tracingOff_noOutputNoFile(@TempDir Path dir) {
        assertEquals("", runTraced(2));
    }
}
