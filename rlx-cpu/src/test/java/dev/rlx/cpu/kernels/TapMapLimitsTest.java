package dev.rlx.cpu.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.ShapeException;
import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The tap map of a convolution is checked before it is allocated (issue 21). */
class TapMapLimitsTest {
    // Regression: a ConvTranspose of kernel height 40,000 over one input row allocated a 6.4 GB int[].
    @Test
    void kernel40000_refusedByTheTensorLimitBeforeAllocating() {
        Limits l = Limits.builder().tensorBytes(1L << 30).build();
        LimitExceededException e = assertThrows(LimitExceededException.class,
                () -> TapMap.transposed(1, 40_000, 40_000, 1, 0, 1, l));
        assertEquals(4L * 40_000 * 40_000, e.asked());
        assertTrue(e.getMessage().contains("tap map"), e.getMessage());
    }

    // Regression: kernel 65,536 x output 65,536 overflowed an int (new int[0], then an index error).
    @Test
    void kernel65536_isAShapeErrorNotAnOverflow() {
        Limits unlimited = Limits.builder().tensorBytes(Long.MAX_VALUE).build();
        ShapeException e = assertThrows(ShapeException.class,
                () -> TapMap.transposed(1, 65_536, 65_536, 1, 0, 1, unlimited));
        assertTrue(e.getMessage().contains("2^31"), e.getMessage());
        assertThrows(ShapeException.class, () -> TapMap.forward(65_536, 65_536, 65_536, 1, 0, 1, unlimited));
    }

    // Strides and dilations up to 2^29 (what the importer allows) used to wrap an int and could land inside the input.
    @Test
    void largeStrideAndDilation_readNothingInsteadOfWrapping() {
        TapMap m = TapMap.forward(5, 5, 5, 1 << 29, 0, 1 << 29, Limits.defaults());
        for (int o = 0; o < 5; o++) {
            for (int t = 0; t < 5; t++) {
                long i = (long) o * (1 << 29) + (long) t * (1 << 29);
                assertEquals(i < 5 ? (int) i : -1, m.src(o, t));
            }
        }
    }

    /** The map is built exactly when its bytes fit the limit. */
    @Property(tries = 50)
    void tensorLimit_admitsExactlyMapsThatFit(@ForAll @IntRange(min = 1, max = 40) int out,
                                             @ForAll @IntRange(min = 1, max = 9) int kernel,
                                             @ForAll @IntRange(min = 0, max = 1500) int limit) {
        Limits l = Limits.builder().tensorBytes(limit).build();
        if (4L * out * kernel <= limit) {
            assertEquals(out, TapMap.forward(out, out, kernel, 1, 0, 1, l).out);
        } else {
            assertThrows(LimitExceededException.class, () -> TapMap.forward(out, out, kernel, 1, 0, 1, l));
        }
    }
}
