package dev.rlx.llm.sample;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KeySortTest {
    @Test
    void sort_matchesArraysSortOnSignedKeysOfEveryShape() {
        Random r = new Random(1);
        KeySort sorter = new KeySort();
        for (int n : new int[] {0, 1, 2, 17, 1000, 40_000}) {
            long[] a = new long[n + 3];
            for (int i = 0; i < a.length; i++) {
                a[i] = switch (i % 4) {
                    case 0 -> r.nextLong();
                    case 1 -> r.nextInt(5) - 2;           // small values around zero, both signs
                    case 2 -> Long.MIN_VALUE + r.nextInt(3);
                    default -> Long.MAX_VALUE - r.nextInt(3);
                };
            }
            long[] expected = a.clone();
            Arrays.sort(expected, 0, n);
            sorter.sort(a, n);
            assertArrayEquals(expected, a, "n = " + n + " (the 3 trailing keys are untouched)");
        }
        long[] same = {5, 5, 5, 5};
        sorter.sort(same, 4);
        assertArrayEquals(new long[] {5, 5, 5, 5}, same);
    }
}
