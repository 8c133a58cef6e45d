package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The register transpose of one vector-length tile, against the index definition, with odd strides and offsets. */
class TileTransposeTest {
    private static final int W = VectorMath.F.length();

    @Test
    void tile_isTheTransposeAndWritesNothingElse() {
        int srcStride = 3 * W + 5;
        int dstStride = 2 * W + 3;
        long srcOff = 7;
        long dstOff = 11;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(4L * (srcOff + (long) W * srcStride), 64);
            MemorySegment dst = arena.allocate(4L * (dstOff + (long) W * dstStride), 64);
            MemorySegment tmp = arena.allocate(4L * W * W, 64);
            Random r = new Random(3);
            for (long i = 0; i < src.byteSize() / 4; i++) {
                src.setAtIndex(JAVA_FLOAT, i, r.nextFloat() * 2 - 1);
            }
            float sentinel = -12345f;
            for (long i = 0; i < dst.byteSize() / 4; i++) {
                dst.setAtIndex(JAVA_FLOAT, i, sentinel);
            }
            TileTranspose.tile(src, srcOff, srcStride, dst, dstOff, dstStride, tmp);
            for (long i = 0; i < dst.byteSize() / 4; i++) {
                long rel = i - dstOff;
                long p = Math.floorDiv(rel, dstStride);
                long j = Math.floorMod(rel, dstStride);
                float want = rel >= 0 && p < W && j < W ? src.getAtIndex(JAVA_FLOAT, srcOff + j * srcStride + p) : sentinel;
                assertEquals(want, dst.getAtIndex(JAVA_FLOAT, i), "dst[" + i + "] (row " + p + ", column " + j + ")");
            }
        }
    }
}
