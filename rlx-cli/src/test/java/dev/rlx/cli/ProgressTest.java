package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ProgressTest {
    @Test
    void onATerminal_theLineIsRedrawnInPlaceAndErasedAtClose() {
        StringWriter err = new StringWriter();
        try (Progress p = new Progress(new PrintWriter(err), true)) {
            p.show("reading");
            p.show("compiling");
            p.update("too soon after the last redraw: skipped");
        }
        assertEquals("\r\033[Kreading\r\033[Kcompiling\r\033[K", err.toString());
    }

    @Test
    void offATerminal_nothingIsPrinted() {
        StringWriter err = new StringWriter();
        try (Progress p = new Progress(new PrintWriter(err), false)) {
            p.show("reading");
            p.update("compiling");
        }
        assertEquals("", err.toString());
    }

    @Test
    void theLaunchersWordDecides() {
        String before = System.getProperty("rlx.progress");
        try {
            System.setProperty("rlx.progress", "true");
            assertEquals(true, Progress.terminal());
            System.setProperty("rlx.progress", "false");
            assertEquals(false, Progress.terminal());
        } finally {
            if (before == null) {
                System.clearProperty("rlx.progress");
            } else {
                System.setProperty("rlx.progress", before);
            }
        }
    }
}
