package dev.rlx.llm.sample;

/**
 * Sorts {@code long} keys ascending (as signed values) without allocating: an LSD radix sort, eight passes of
 * one byte, O(n), skipping a pass whose byte is the same for every key. ({@code Arrays.sort(long[])} allocates
 * merge buffers on large inputs, which would break the samplers' no-allocation contract.) The scratch grows
 * to the largest input seen.
 */
final class KeySort {
    private long[] spare = new long[0];
    private final int[] count = new int[257];

    void sort(long[] a, int n) {
        if (spare.length < n) {
            spare = new long[a.length];
        }
        long[] src = a;
        long[] dst = spare;
        for (int shift = 0; shift < 64; shift += 8) {
            java.util.Arrays.fill(count, 0);
            for (int i = 0; i < n; i++) {
                count[digit(src[i], shift) + 1]++;
            }
            if (n == 0 || count[digit(src[0], shift) + 1] == n) {
                continue; // every key has this byte: the order stands
            }
            for (int d = 0; d < 256; d++) {
                count[d + 1] += count[d];
            }
            for (int i = 0; i < n; i++) {
                long k = src[i];
                dst[count[digit(k, shift)]++] = k;
            }
            long[] t = src;
            src = dst;
            dst = t;
        }
        if (src != a) {
            System.arraycopy(src, 0, a, 0, n);
        }
    }

    /** Byte {@code shift/8} of the key with the sign bit flipped, so unsigned byte order is signed key order. */
    private static int digit(long k, int shift) {
        return (int) ((k ^ Long.MIN_VALUE) >>> shift) & 0xFF;
    }
}
