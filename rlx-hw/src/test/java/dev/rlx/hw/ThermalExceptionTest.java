package dev.rlx.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.RlxException;
import dev.rlx.hw.ThermalException.Kind;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ThermalExceptionTest {
    @Test
    void permissionDenied_tellsToRunAsRoot() {
        ThermalException e = ThermalException.driver(Kind.PERMISSION_DENIED, GpuVendor.NVIDIA, 1, "reset the fan", "NVML", 4,
                "Insufficient Permissions");
        assertEquals("cannot reset the fan on NVIDIA GPU 1: NVML returned \"Insufficient Permissions\" (code 4); "
                + "this needs root: run as root or with sudo", e.getMessage());
        assertEquals(OptionalInt.of(4), e.code());
        assertInstanceOf(RlxException.class, e);
    }

    @Test
    void outOfRange_printsWholeNumbersAndKeepsTheValues() {
        ThermalException e = ThermalException.outOfRange(GpuVendor.AMD, 0, "set the power cap", 812.7, 200, 750, "W");
        assertEquals("cannot set the power cap on AMD GPU 0: 813 W is outside the allowed range 200..750 W", e.getMessage());
        assertEquals(Kind.OUT_OF_RANGE, e.kind());
        assertEquals(OptionalDouble.of(812.7), e.requested());
        assertEquals(OptionalDouble.of(200), e.min());
        assertEquals(OptionalDouble.of(750), e.max());
        assertEquals(OptionalInt.empty(), e.code());
    }

    @Test
    void otherKinds_carryNoRangeOrCode() {
        ThermalException e = ThermalException.of(Kind.UNSUPPORTED, GpuVendor.AMD, 0, "reset the fan", "no fans");
        assertEquals("cannot reset the fan on AMD GPU 0: no fans", e.getMessage());
        assertEquals(OptionalDouble.empty(), e.requested());
        assertEquals(OptionalInt.empty(), e.code());
        assertEquals(GpuVendor.AMD, e.vendor());
        assertEquals(0, e.index());
    }
}
