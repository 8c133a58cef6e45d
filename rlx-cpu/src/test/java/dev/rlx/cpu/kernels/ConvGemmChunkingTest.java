package dev.rlx.cpu.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * How the im2col conv cuts its output positions into chunks (the values it computes are checked against the
 * float64 reference in {@code ConvKernelsTest}).
 */
class ConvGemmChunkingTest {
    private static final int NR = Sgemm.NR;

    private static int units(int positions, int chunk, int imageGroups) {
        return imageGroups * ((positions + chunk - 1) / chunk);
    }

    @Test
    void chunksAreWholePanelsWithinTheColumnMatrixBudget() {
        int[][] cases = {{3136, 576, 1}, {600, 576, 1}, {100000, 27, 2}, {50, 64, 3}, {4096, 4608, 1}};
        for (int[] c : cases) {
            for (int threads = 1; threads <= 4; threads++) {
                int chunk = ConvGemmF32.chunkColumns(c[0], c[1], c[2], threads);
                String what = c[0] + " positions, K " + c[1] + ", " + threads + " threads: chunk " + chunk;
                assertTrue(chunk == c[0] || chunk % NR == 0, what);
                assertTrue(chunk > 0 && chunk <= c[0], what);
                assertTrue((long) chunk * c[1] <= Math.max(256 * 1024, (long) NR * c[1]), what);
            }
        }
    }

    @Test
    void oneThreadTakesTheLargestChunks() {
        int most = ConvGemmF32.CHUNK_FLOATS / 576 / NR * NR;
        assertEquals(most, ConvGemmF32.chunkColumns(7 * most, 576, 1, 1));
    }

    @Test
    void manyUnitsKeepTheLargestChunks() {
        int most = ConvGemmF32.CHUNK_FLOATS / 576 / NR * NR;
        assertEquals(most, ConvGemmF32.chunkColumns(7 * most, 576, 64, 2)); // 448 units: no search
    }

    @Test
    void twoThreadsGetEvenShares() {
        // the largest chunks would make 7 units: taken in turn, one thread would do 4 and the other 3
        int most = ConvGemmF32.CHUNK_FLOATS / 576 / NR * NR;
        int positions = 7 * most;
        int chunk = ConvGemmF32.chunkColumns(positions, 576, 1, 2);
        int units = units(positions, chunk, 1);
        long first = 0;
        long second = 0;
        for (int u = 0; u < units; u++) {
            long cols = Math.min(chunk, positions - (long) u * chunk);
            if (u % 2 == 0) {
                first += cols;
            } else {
                second += cols;
            }
        }
        assertTrue(Math.abs(first - second) < chunk, "chunk " + chunk + ": " + first + " vs " + second + " columns");
    }
}
