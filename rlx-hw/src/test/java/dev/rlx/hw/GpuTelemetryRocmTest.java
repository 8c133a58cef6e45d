package dev.rlx.hw;

import static dev.rlx.hw.FakeVendorLibrary.ROCM_SMI;
import static dev.rlx.hw.Refusals.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.hw.ThermalException.Kind;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ROCm SMI telemetry and control against the fake librocm_smi64.so (src/test/c/fake_rocm_smi.c). */
class GpuTelemetryRocmTest {
    private static final String NO_NVML = "/nonexistent/libnvidia-ml.so";
    private static final GpuThermal MI300X = new GpuThermal(GpuVendor.AMD, 0, "RLX Fake MI300X", 55.0, 71.5, 63.0, 250.5,
            600.0, null, null, 50, 64, 20);
    private static final GpuThermal RADEON = new GpuThermal(GpuVendor.AMD, 1, "RLX Fake Radeon (no average power)", 40.0,
            null, null, 88.0, 150.0, null, null, null, 5, null);

    private GpuTelemetry t;

    @BeforeEach
    void freshFake() {
        ROCM_SMI.reset();
        t = GpuTelemetry.withLibraries(NO_NVML, ROCM_SMI.path().toString());
    }

    @Test
    void allGpuThermal_readsEveryFieldOfBothDevices() {
        assertEquals(List.of(MI300X, RADEON), t.allGpuThermal());
        assertEquals(Optional.of(RADEON), t.deviceThermal(GpuVendor.AMD, 1));
        assertEquals(Optional.empty(), t.deviceThermal(GpuVendor.AMD, 2));
        assertEquals("2 devices (" + ROCM_SMI.path() + ")", t.sources().get("ROCm SMI"));
    }

    @Test
    void noAveragePower_fallsBackToCurrentPower() {
        assertEquals(88.0, t.deviceThermal(GpuVendor.AMD, 1).orElseThrow().powerW());
        assertEquals(1, ROCM_SMI.calls("rsmi_dev_power_get"), "asked only for the board without an average");
    }

    @Test
    void failingSensorCall_isNull() {
        ROCM_SMI.force("rsmi_dev_temp_metric_get", 3); // RSMI_STATUS_FILE_ERROR
        ROCM_SMI.force("rsmi_dev_fan_speed_get", 3);
        GpuThermal g = t.deviceThermal(GpuVendor.AMD, 0).orElseThrow();
        assertNull(g.tempC());
        assertNull(g.hotspotC());
        assertNull(g.memTempC());
        assertNull(g.fanPercent());
        assertEquals(250.5, g.powerW());
    }

    @Test
    void powerCap_rangeSetAndReset() {
        assertEquals(new GpuTelemetry.PowerRange(200, 750), t.powerCapRange(GpuVendor.AMD, 0));
        ThermalException e = refused(Kind.PERMISSION_DENIED, () -> t.setPowerCap(GpuVendor.AMD, 0, 300));
        assertEquals(OptionalInt.of(4), e.code());
        assertTrue(e.getMessage().contains("AMD GPU 0") && e.getMessage().contains("sudo"), e.getMessage());
        ROCM_SMI.root(true);
        t.setPowerCap(GpuVendor.AMD, 0, 300);
        assertEquals(300_000_000L, ROCM_SMI.longCall("power_cap_uw", 0));
        assertEquals(300.0, t.deviceThermal(GpuVendor.AMD, 0).orElseThrow().powerCapW());
        int driverCalls = ROCM_SMI.calls("rsmi_dev_power_cap_set");
        refused(Kind.OUT_OF_RANGE, () -> t.setPowerCap(GpuVendor.AMD, 0, 751));
        assertEquals(driverCalls, ROCM_SMI.calls("rsmi_dev_power_cap_set"), "rejected before the driver");
        t.resetPowerCap(GpuVendor.AMD, 0);
        assertEquals(600_000_000L, ROCM_SMI.longCall("power_cap_uw", 0));
    }

    @Test
    void fan_percentIsScaledToTheDevicesMaximum() {
        ROCM_SMI.root(true);
        t.setFanPercent(GpuVendor.AMD, 0, 30);
        assertEquals(Math.round(0.30 * 255), ROCM_SMI.longCall("fan_raw", 0));
        assertEquals(30, t.deviceThermal(GpuVendor.AMD, 0).orElseThrow().fanPercent());
        t.resetFan(GpuVendor.AMD, 0);
        assertEquals(-1, ROCM_SMI.longCall("fan_raw", 0), "automatic");
        ThermalException e = refused(Kind.UNSUPPORTED, () -> t.setFanPercent(GpuVendor.AMD, 1, 30));
        assertEquals(OptionalInt.of(2), e.code());
        assertTrue(e.getMessage().contains("RSMI_STATUS_NOT_SUPPORTED"), e.getMessage());
        ROCM_SMI.root(false);
        refused(Kind.PERMISSION_DENIED, () -> t.resetFan(GpuVendor.AMD, 0));
    }

    @Test
    void lockedClocks_areNvidiaOnly() {
        ROCM_SMI.root(true);
        ThermalException e = refused(Kind.UNSUPPORTED, () -> t.setLockedClocks(GpuVendor.AMD, 0, 500, 1500));
        assertTrue(e.getMessage().contains("NVIDIA"), e.getMessage());
        refused(Kind.UNSUPPORTED, () -> t.resetLockedClocks(GpuVendor.AMD, 0));
    }

    @Test
    void driverErrorsAndInitFailure() {
        ROCM_SMI.root(true);
        ROCM_SMI.force("rsmi_dev_power_cap_set", 6); // RSMI_STATUS_INTERNAL_EXCEPTION
        ThermalException e = refused(Kind.DRIVER, () -> t.setPowerCap(GpuVendor.AMD, 0, 300));
        assertEquals(OptionalInt.of(6), e.code());
        ROCM_SMI.force("rsmi_init", 8); // RSMI_STATUS_INIT_ERROR
        GpuTelemetry broken = GpuTelemetry.withLibraries(NO_NVML, ROCM_SMI.path().toString());
        assertEquals(List.of(), broken.allGpuThermal());
        assertTrue(broken.sources().get("ROCm SMI").startsWith("initialisation failed"), broken.sources().toString());
        refused(Kind.UNAVAILABLE, () -> broken.resetFan(GpuVendor.AMD, 0));
        refused(Kind.NO_SUCH_DEVICE, () -> t.resetFan(GpuVendor.AMD, 2));
    }
}
