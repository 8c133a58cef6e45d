package dev.rlx.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CpuListTest {
    @Test
    void parse_rangesAndSingles() {
        assertEquals(Optional.of(List.of(0, 1, 2, 3, 8, 10, 11)), CpuList.parse("0-3,8,10-11\n"));
        assertEquals(Optional.of(List.of(5)), CpuList.parse(" 5 "));
        assertEquals(Optional.of(List.of(0, 1, 2)), CpuList.parse("2,0-1,1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "a", "3-1", "-1", "1-2-3", "0,,1", "0-99999999", "1-"})
    void parse_malformed_isEmpty(String text) {
        assertTrue(CpuList.parse(text).isEmpty(), text);
    }

    @Test
    void format_isCompactAndRoundTrips() {
        assertEquals("0-3,8,10-11", CpuList.format(List.of(11, 10, 8, 3, 2, 1, 0)));
        assertEquals("7", CpuList.format(List.of(7)));
        assertEquals("", CpuList.format(List.of()));
        assertEquals(Optional.of(List.of(0, 2, 4, 5)), CpuList.parse(CpuList.format(List.of(0, 2, 4, 5))));
    }
}
