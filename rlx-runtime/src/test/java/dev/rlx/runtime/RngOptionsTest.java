package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RngOptionsTest {

    @Test
    void defaults_arePhilox42RepeatingEachRun_ortAdvances() {
        assertEquals(new RngOptions(RngOptions.Generator.PHILOX, 42, false), RngOptions.defaults());
        assertTrue(RngOptions.ort(3).advanceAcrossRuns(), "ORT keeps its engine across runs, as ONNX Runtime does");
        assertEquals(RngOptions.defaults(), CompileOptions.defaults().rng());
        assertFalse(RngOptions.ort(3).withAdvanceAcrossRuns(false).advanceAcrossRuns());
    }

    @Test
    void streamSeed_nodeSeedWinsAndKeysSeparateStreams() {
        RngOptions o = RngOptions.philox(5);
        assertEquals(5, o.streamSeed(99, false, 0));
        assertEquals(99, o.streamSeed(99, true, 0));
        assertEquals(5 + 0x9E3779B97F4A7C15L, o.streamSeed(0, false, 1));
        assertNotEquals(o.streamSeed(7, true, 1), o.streamSeed(7, true, 2));
    }

    @Test
    void ortEngineSeed_truncatesTo32Bits() {
        RngOptions o = RngOptions.ort(0x1_0000_0005L);
        assertEquals(7, o.ortEngineSeed(7, true, 3));
        assertEquals(5 + 3, o.ortEngineSeed(0, false, 3));
        assertEquals(-1, o.ortEngineSeed(0xFFFF_FFFFL, true, 0)); // 4294967295 as unsigned bits
    }

    @Test
    void compileOptions_withRngKeepsTheOtherFields() {
        CompileOptions c = CompileOptions.defaults().withThreads(3).withRng(RngOptions.zero()).withAlignment(128);
        assertEquals(RngOptions.zero(), c.rng());
        assertEquals(3, c.threads());
        assertEquals(128, c.alignment());
        assertTrue(c.optimize());
        assertThrows(NullPointerException.class, () -> c.withRng(null));
    }
}
