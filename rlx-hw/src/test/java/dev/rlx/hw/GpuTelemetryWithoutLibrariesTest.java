package dev.rlx.hw;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static dev.rlx.hw.Refusals.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.hw.ThermalException.Kind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** A machine without GPU management libraries: empty readings and typed refusals, never a crash. */
class GpuTelemetryWithoutLibrariesTest {
    private final GpuTelemetry t = GpuTelemetry.withLibraries("/nonexistent/libnvidia-ml.so", "/nonexistent/librocm_smi64.so");

    @Test
    void readings_areEmpty() {
        assertEquals(List.of(), t.allGpuThermal());
        for (GpuVendor d : GpuVendor.values()) {
            assertEquals(Optional.empty(), t.deviceThermal(d, 0), d.toString());
            assertEquals(0, t.deviceCount(d), d.toString());
        }
        assertEquals(Map.of("NVML", "library not found", "ROCm SMI", "library not found"), t.sources());
    }

    @Test
    void everyControl_isLibraryMissingWithAdvice() {
        for (GpuVendor d : GpuVendor.values()) {
            List<Executable> calls = List.of(() -> t.powerCapRange(d, 0), () -> t.setPowerCap(d, 0, 100),
                    () -> t.resetPowerCap(d, 0), () -> t.setFanPercent(d, 0, 50), () -> t.resetFan(d, 0));
            for (Executable c : calls) {
                ThermalException e = refused(Kind.LIBRARY_MISSING, c);
                String env = d == GpuVendor.NVIDIA ? GpuTelemetry.NVML_ENV : GpuTelemetry.ROCM_SMI_ENV;
                assertTrue(e.getMessage().contains(env) && e.getMessage().contains("/nonexistent/"), e.getMessage());
            }
        }
        refused(Kind.LIBRARY_MISSING, () -> t.setLockedClocks(GpuVendor.NVIDIA, 0, 100, 200));
        refused(Kind.LIBRARY_MISSING, () -> t.resetLockedClocks(GpuVendor.NVIDIA, 0));
    }

    @Test
    void amdClockLock_isUnsupportedEvenWithoutTheLibrary() {
        refused(Kind.UNSUPPORTED, () -> t.setLockedClocks(GpuVendor.AMD, 0, 100, 200));
        refused(Kind.UNSUPPORTED, () -> t.resetLockedClocks(GpuVendor.AMD, 0));
    }

    @Test
    void system_neverThrows() {
        assertDoesNotThrow(() -> GpuTelemetry.system().allGpuThermal());
        assertDoesNotThrow(() -> GpuTelemetry.system().sources());
        assertEquals(List.of("NVML", "ROCm SMI"), List.copyOf(GpuTelemetry.system().sources().keySet()));
    }
}
