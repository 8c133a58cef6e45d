package dev.rlx.cpu.blas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which OpenBLAS kernel families may stand in for RLX's kernels, or be compared with them. */
class BlasCoreTest {
    @Test
    void vectorBits_byFamily_unknownCountsAsNarrow() {
        assertEquals(512, BlasCore.vectorBits("Cooperlake"));
        assertEquals(512, BlasCore.vectorBits("SKYLAKEX"));
        assertEquals(256, BlasCore.vectorBits("Haswell"));
        assertEquals(256, BlasCore.vectorBits("Zen"));
        assertEquals(128, BlasCore.vectorBits("Prescott"));
        assertEquals(128, BlasCore.vectorBits("Core2"));
        assertEquals(128, BlasCore.vectorBits("SomeFutureCore"));
        assertEquals(128, BlasCore.vectorBits(null));
    }

    @Test
    void unfit_whenTheLibrarysKernelsAreNarrowerThanRlxs() {
        String why = BlasCore.unfit("Prescott", 512);
        assertTrue(why != null && why.contains("Prescott") && why.contains("128-bit") && why.contains("512-bit"), why);
        assertTrue(BlasCore.unfit("Haswell", 512) != null, "AVX2 kernels on an AVX-512 CPU: RLX's are wider");
        assertNull(BlasCore.unfit("Cooperlake", 512));
        assertNull(BlasCore.unfit("Haswell", 256), "on an AVX2 CPU Haswell kernels are the right ones");
        assertNull(BlasCore.unfit("Prescott", 128));
    }
}
