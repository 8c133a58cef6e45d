package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class TracerLevelTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final PrintStream warn = new PrintStream(err, true, StandardCharsets.UTF_8);

    @Test
    void knownValues() {
        AtomicBoolean warned = new AtomicBoolean();
        assertEquals(0, Tracer.level(null, warn, warned));
        assertEquals(0, Tracer.level(" ", warn, warned));
        assertEquals(0, Tracer.level("0", warn, warned));
        assertEquals(1, Tracer.level("1", warn, warned));
        assertEquals(2, Tracer.level(" 2 ", warn, warned));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void unknownValues_areOffWithOneWarning() {
        AtomicBoolean warned = new AtomicBoolean();
        assertEquals(0, Tracer.level("yes", warn, warned));
        assertEquals(0, Tracer.level("3", warn, warned));
        assertEquals(0, Tracer.level("-1", warn, warned));
        String out = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, out.lines().count(), out);
        assertTrue(out.startsWith("[rlx trace] ignoring RLX_TRACE='yes': it takes 1 "), out);
    }
}
