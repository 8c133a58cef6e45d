package dev.rlx.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class GpuThermalTest {
    private static GpuThermal power(Double w, Double cap) {
        return new GpuThermal(GpuVendor.NVIDIA, 0, "g", null, null, null, w, cap, null, null, null, null, null);
    }

    @Test
    void powerHeadroom_isDrawOverCapClampedToOne() {
        assertEquals(OptionalDouble.of(0.25), power(50.0, 200.0).powerHeadroom());
        assertEquals(OptionalDouble.of(1.0), power(250.0, 200.0).powerHeadroom());
        assertEquals(OptionalDouble.of(0.0), power(0.0, 200.0).powerHeadroom());
    }

    @Test
    void powerHeadroom_needsBothReadingsAndAPositiveCap() {
        assertEquals(OptionalDouble.empty(), power(null, 200.0).powerHeadroom());
        assertEquals(OptionalDouble.empty(), power(50.0, null).powerHeadroom());
        assertEquals(OptionalDouble.empty(), power(50.0, 0.0).powerHeadroom());
        assertEquals(OptionalDouble.empty(), power(Double.NaN, 200.0).powerHeadroom());
        assertEquals(OptionalDouble.empty(), power(50.0, Double.NaN).powerHeadroom());
    }

    @Test
    void vendor_isRequired() {
        assertThrows(NullPointerException.class,
                () -> new GpuThermal(null, 0, null, null, null, null, null, null, null, null, null, null, null));
    }
}
