package dev.rlx.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Attrs normalisation, ordering, access and rejections. */
class AttrsTest {

    private static void rejected(Executable call, String... mentions) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String m : mentions) {
            assertTrue(e.getMessage().contains(m), () -> "message should mention '" + m + "': " + e.getMessage());
        }
    }

    @Test
    void of_normalisesNumbersAndArrays() {
        Attrs a = Attrs.of("i", 3, "f", 1.5f, "ints", new int[] {1, 2}, "longs", new long[] {3},
                "doubles", new double[] {0.5}, "intList", List.of(4, 5), "floatList", List.of(0.25f),
                "mixedInts", List.of(1, 2L), "empty", List.of());
        assertEquals(3L, a.asMap().get("i"));
        assertEquals(1.5, a.asMap().get("f"));
        assertEquals(List.of(1L, 2L), a.asMap().get("ints"));
        assertEquals(List.of(3L), a.asMap().get("longs"));
        assertEquals(List.of(0.5), a.asMap().get("doubles"));
        assertEquals(List.of(4L, 5L), a.asMap().get("intList"));
        assertEquals(List.of(0.25), a.asMap().get("floatList"));
        assertEquals(List.of(1L, 2L), a.asMap().get("mixedInts"));
        assertEquals(List.of(), a.asMap().get("empty"));
        assertEquals(Attrs.of("i", 3L), Attrs.of("i", 3), "Integer and Long normalise to the same value");
        assertEquals(Attrs.of("f", 0.5), Attrs.of("f", 0.5f));
    }

    @Test
    void attrs_sortedByName_andImmutable() {
        Attrs a = Attrs.of("zeta", 1, "alpha", 2, "mid", 3);
        assertEquals(List.of("alpha", "mid", "zeta"), List.copyOf(a.asMap().keySet()));
        assertEquals("{alpha=2, mid=3, zeta=1}", a.toString());
        assertThrows(UnsupportedOperationException.class, () -> a.asMap().put("x", 1L));
        Map<String, Object> source = new HashMap<>(Map.of("k", 1));
        Attrs fromMap = Attrs.of(source);
        source.put("k", 2);
        assertEquals(1L, fromMap.getLong("k"), "of(map) copies");
        assertEquals(Attrs.of("k", 1), fromMap);
    }

    @Test
    void attrs_equalityAndEmpty() {
        assertEquals(Attrs.of("a", 1, "b", "x"), Attrs.of("b", "x", "a", 1L));
        assertEquals(Attrs.of("a", 1, "b", "x").hashCode(), Attrs.of("b", "x", "a", 1L).hashCode());
        assertNotEquals(Attrs.of("a", 1), Attrs.of("a", 1.0), "Long and Double differ");
        assertNotEquals(Attrs.of("a", List.of(1L)), Attrs.of("a", List.of(1.0)));
        assertEquals(Attrs.EMPTY, Attrs.of());
        assertEquals(Attrs.EMPTY, Attrs.of(Map.of()));
        assertTrue(Attrs.EMPTY.isEmpty());
        assertFalse(Attrs.of("a", true).isEmpty());
    }

    @Test
    void getters() {
        Attrs a = Attrs.of("n", 7, "x", 0.5, "b", true, "s", "hi", "ls", List.of(1L), "ds", List.of(2.0));
        assertEquals(7L, a.getLong("n"));
        assertEquals(7.0, a.getDouble("n"), "a long reads as a double");
        assertEquals(0.5, a.getDouble("x"));
        assertTrue(a.getBoolean("b"));
        assertEquals("hi", a.getString("s"));
        assertEquals(List.of(1L), a.getLongs("ls"));
        assertEquals(List.of(2.0), a.getDoubles("ds"));
        assertTrue(a.has("n"));
        assertFalse(a.has("missing"));
        rejected(() -> a.getLong("missing"), "'missing'", "[b, ds, ls, n, s, x]");
        rejected(() -> a.getLong("x"), "'x'", "Double", "Long");
        rejected(() -> a.getString("n"), "'n'");
        rejected(() -> a.getBoolean("s"), "'s'");
        rejected(() -> a.getDoubles("s"), "'s'");
    }

    @Test
    void listGetters_checkTheElementType() {
        Attrs a = Attrs.of("ls", List.of(1L, 2L), "ds", List.of(0.5), "none", List.of());
        rejected(() -> a.getLongs("ds"), "'ds'");
        rejected(() -> a.getDoubles("ls"), "'ls'");
        assertEquals(List.of(), a.getLongs("none"), "an empty list is a list of either");
        assertEquals(List.of(), a.getDoubles("none"));
    }

    @Test
    void of_rejections() {
        rejected(() -> Attrs.of("a"), "pairs");
        rejected(() -> Attrs.of(1, "a"), "position 0", "not a String");
        rejected(() -> Attrs.of("a", 1, "a", 2), "duplicate", "'a'");
        rejected(() -> Attrs.of("a", null), "'a'", "null");
        rejected(() -> Attrs.of("s", (short) 1), "'s'", "Short");
        rejected(() -> Attrs.of("o", new Object()), "'o'", "Object");
        rejected(() -> Attrs.of("fa", new float[] {1f}), "'fa'");
        rejected(() -> Attrs.of("strs", List.of("a")), "'strs'");
        rejected(() -> Attrs.of("mixed", List.of(1L, 2.0)), "'mixed'");
        rejected(() -> Attrs.of(Map.of("m", Map.of())), "'m'");
        List<Object> withNull = new java.util.ArrayList<>();
        withNull.add(null);
        rejected(() -> Attrs.of("n", withNull), "'n'");
    }

    @Test
    void of_keepsLongsExact() {
        Attrs a = Attrs.of("big", Long.MAX_VALUE, "list", List.of(Long.MIN_VALUE));
        assertEquals(Long.MAX_VALUE, a.getLong("big"));
        assertSame(Long.class, a.asMap().get("big").getClass());
        assertEquals(Long.MIN_VALUE, a.getLongs("list").get(0));
    }
}
