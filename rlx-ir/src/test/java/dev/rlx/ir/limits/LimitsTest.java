package dev.rlx.ir.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LimitsTest {
    @Test
    void environmentOverridesTheMachineDefault() {
        Limits l = Limits.fromEnvironment(Map.of("RLX_MAX_ARENA_BYTES", "3m", "RLX_MAX_GRAPH_NODES", "1234"));
        assertEquals(3L << 20, l.arenaBytes());
        assertEquals(1234, l.graphNodes());
        assertTrue(l.weightBytes() > 0);
    }

    @Test
    void checkNamesTheLimitAndTheSizeAsked() {
        Limits l = Limits.builder().arenaBytes(1000).build();
        l.check(Limits.Kind.ARENA_BYTES, "arena of graph 'g'", 1000);
        LimitExceededException e = assertThrows(LimitExceededException.class,
                () -> l.check(Limits.Kind.ARENA_BYTES, "arena of graph 'g'", 1001));
        assertEquals(1001, e.asked());
        assertEquals(1000, e.limit());
        assertTrue(e.getMessage().contains("arena of graph 'g' needs 1001 bytes"), e.getMessage());
        assertTrue(e.getMessage().contains("RLX_MAX_ARENA_BYTES"), e.getMessage());
    }

    @Test
    void withinPutsTheCallersContextFirstAndKeepsTheFigures() {
        Limits l = Limits.builder().tensorBytes(10).build();
        LimitExceededException e = assertThrows(LimitExceededException.class,
                () -> l.check(Limits.Kind.TENSOR_BYTES, "value f32[4]", 16));
        LimitExceededException w = e.within("node #3 'Expand_1' (Expand)");
        assertEquals("node #3 'Expand_1' (Expand): value f32[4]", w.what());
        assertTrue(w.getMessage().startsWith("node #3 'Expand_1' (Expand): value f32[4] needs 16 bytes"), w.getMessage());
        assertEquals(Limits.Kind.TENSOR_BYTES, w.kind());
        assertEquals(16, w.asked());
        assertEquals(10, w.limit());
        assertEquals(e, w.getCause());
    }

    @Test
    void anOverflowedSizeIsOverEveryLimit() {
        Limits l = Limits.builder().tensorBytes(Long.MAX_VALUE).build();
        LimitExceededException e = assertThrows(LimitExceededException.class,
                () -> l.check(Limits.Kind.TENSOR_BYTES, "tensor 'x'", -1));
        assertEquals(Long.MAX_VALUE, e.asked());
    }

    @Test
    void aMalformedSizeIsRefusedNamingItsSource() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Limits.fromEnvironment(Map.of("RLX_MAX_RANK", "lots")));
        assertTrue(e.getMessage().startsWith("RLX_MAX_RANK=lots"), e.getMessage());
        assertEquals(5L << 30, Limits.parseSize("5g", "x"));
    }
}
