package dev.rlx.hw;

import static dev.rlx.hw.FakeVendorLibrary.NVML;
import static dev.rlx.hw.Refusals.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.hw.ThermalException.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** NVML telemetry and control against the fake libnvidia-ml.so (src/test/c/fake_nvml.c). */
class GpuTelemetryNvmlTest {
    private static final String NO_ROCM = "/nonexistent/librocm_smi64.so";
    private static final GpuThermal H100 = new GpuThermal(GpuVendor.NVIDIA, 0, "RLX Fake H100", 61.0, null, null, 123.456,
            300.0, 1410, 1215, 42, 87, 35);
    private static final GpuThermal L4 = new GpuThermal(GpuVendor.NVIDIA, 1, "RLX Fake L4 (passive)", 45.0, null, null, null,
            72.0, 2040, 6251, null, 3, 1);

    private GpuTelemetry t;

    @BeforeEach
    void freshFake() {
        NVML.reset();
        t = GpuTelemetry.withLibraries(NVML.path().toString(), NO_ROCM);
    }

    /* ---- reading ---- */

    @Test
    void allGpuThermal_readsEveryFieldOfBothDevices() {
        assertEquals(List.of(H100, L4), t.allGpuThermal());
        assertEquals(2, t.deviceCount(GpuVendor.NVIDIA));
        assertEquals(0, t.deviceCount(GpuVendor.AMD));
    }

    @Test
    void deviceThermal_byIndex() {
        assertEquals(Optional.of(H100), t.deviceThermal(GpuVendor.NVIDIA, 0));
        assertEquals(Optional.of(L4), t.deviceThermal(GpuVendor.NVIDIA, 1));
        assertEquals(Optional.empty(), t.deviceThermal(GpuVendor.NVIDIA, 2));
        assertEquals(Optional.empty(), t.deviceThermal(GpuVendor.NVIDIA, -1));
        assertEquals(Optional.empty(), t.deviceThermal(GpuVendor.AMD, 0));
    }

    @Test
    void absentSensors_areNullNeverZero() {
        GpuThermal passive = t.deviceThermal(GpuVendor.NVIDIA, 1).orElseThrow();
        assertNull(passive.powerW(), "power usage NOT_SUPPORTED");
        assertNull(passive.fanPercent(), "no fans");
        assertNull(passive.hotspotC(), "NVML has no hotspot sensor");
        assertNull(passive.memTempC(), "NVML has no memory sensor");
        assertEquals(OptionalDouble.empty(), passive.powerHeadroom());
        assertEquals(123.456 / 300.0, t.deviceThermal(GpuVendor.NVIDIA, 0).orElseThrow().powerHeadroom().orElseThrow(), 1e-12);
    }

    @ParameterizedTest
    @CsvSource({
        "nvmlDeviceGetName, name", "nvmlDeviceGetTemperature, temp", "nvmlDeviceGetPowerUsage, power",
        "nvmlDeviceGetEnforcedPowerLimit, cap", "nvmlDeviceGetClockInfo, clocks", "nvmlDeviceGetFanSpeed, fan",
        "nvmlDeviceGetUtilizationRates, util"
    })
    void failingSensorCall_leavesOnlyItsFieldsNull(String function, String field) {
        NVML.force(function, 15); // NVML_ERROR_GPU_IS_LOST
        GpuThermal g = t.deviceThermal(GpuVendor.NVIDIA, 0).orElseThrow();
        Map<String, Function<GpuThermal, List<Object>>> fields = Map.of(
                "name", x -> listOf(x.name()), "temp", x -> listOf(x.tempC()), "power", x -> listOf(x.powerW()),
                "cap", x -> listOf(x.powerCapW()), "clocks", x -> listOf(x.smClockMhz(), x.memClockMhz()),
                "fan", x -> listOf(x.fanPercent()), "util", x -> listOf(x.utilPercent(), x.memUtilPercent()));
        fields.forEach((name, get) -> {
            for (Object v : get.apply(g)) {
                assertEquals(name.equals(field), v == null, name + " after " + function + " failed: " + g);
            }
        });
    }

    private static List<Object> listOf(Object... values) {
        return new ArrayList<>(java.util.Arrays.asList(values));
    }

    @Test
    void nameFillingTheBufferWithoutNul_isCutAtTheBuffer() {
        NVML.intCall("unterminated_name", 1);
        assertEquals("X".repeat(NvmlProvider.NAME_BUFFER), t.deviceThermal(GpuVendor.NVIDIA, 0).orElseThrow().name());
    }

    @Test
    void sources_sayWhatWasLoaded() {
        assertEquals(Map.of("NVML", "2 devices (" + NVML.path() + ")", "ROCm SMI", "library not found"), t.sources());
        assertEquals(List.of("NVML", "ROCm SMI"), List.copyOf(t.sources().keySet()));
    }

    @Test
    void lazyInit_happensOnceUnderConcurrentFirstUse() throws Exception {
        GpuTelemetry fresh = GpuTelemetry.withLibraries(NVML.path().toString(), NO_ROCM);
        assertEquals(0, NVML.calls("nvmlInit_v2"), "nothing is loaded before first use");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<List<GpuThermal>>> jobs = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                jobs.add(fresh::allGpuThermal);
            }
            for (Future<List<GpuThermal>> f : pool.invokeAll(jobs)) {
                assertEquals(List.of(H100, L4), f.get());
            }
        } finally {
            pool.shutdown();
        }
        assertEquals(1, NVML.calls("nvmlInit_v2"));
    }

    @Test
    void initFailure_meansNoDevicesAndUnavailable() {
        NVML.force("nvmlInit_v2", 9); // NVML_ERROR_DRIVER_NOT_LOADED
        GpuTelemetry broken = GpuTelemetry.withLibraries(NVML.path().toString(), NO_ROCM);
        assertEquals(List.of(), broken.allGpuThermal());
        assertEquals("initialisation failed: Driver Not Loaded (code 9)", broken.sources().get("NVML"));
        ThermalException e = refused(Kind.UNAVAILABLE, () -> broken.setPowerCap(GpuVendor.NVIDIA, 0, 200));
        assertTrue(e.getMessage().contains("Driver Not Loaded"), e.getMessage());
    }

    @Test
    void libraryWithoutNvmlSymbols_isUnavailable() {
        GpuTelemetry wrong = GpuTelemetry.withLibraries(FakeVendorLibrary.ROCM_SMI.path().toString(), NO_ROCM);
        assertEquals(List.of(), wrong.allGpuThermal());
        assertTrue(wrong.sources().get("NVML").startsWith("no nvmlInit_v2 in the library"), wrong.sources().toString());
        refused(Kind.UNAVAILABLE, () -> wrong.resetFan(GpuVendor.NVIDIA, 0));
    }

    /* ---- power cap ---- */

    @Test
    void powerCapRange_isTheDriversConstraintsInWatts() {
        assertEquals(new GpuTelemetry.PowerRange(100, 350), t.powerCapRange(GpuVendor.NVIDIA, 0));
        assertEquals(new GpuTelemetry.PowerRange(40, 72), t.powerCapRange(GpuVendor.NVIDIA, 1));
    }

    @Test
    void setPowerCap_withoutRoot_isPermissionDeniedAndSaysSo() {
        ThermalException e = refused(Kind.PERMISSION_DENIED, () -> t.setPowerCap(GpuVendor.NVIDIA, 0, 250));
        assertEquals(OptionalInt.of(4), e.code());
        assertEquals(GpuVendor.NVIDIA, e.vendor());
        assertEquals(0, e.index());
        assertTrue(e.getMessage().contains("NVIDIA GPU 0") && e.getMessage().contains("root")
                && e.getMessage().contains("sudo") && e.getMessage().contains("Insufficient Permissions"), e.getMessage());
        assertEquals(300000, NVML.intCall("power_limit_mw", 0), "unchanged");
    }

    @Test
    void setPowerCap_asRoot_changesTheLimitTelemetryReports() {
        NVML.root(true);
        t.setPowerCap(GpuVendor.NVIDIA, 0, 250.25);
        assertEquals(250250, NVML.intCall("power_limit_mw", 0));
        assertEquals(250.25, t.deviceThermal(GpuVendor.NVIDIA, 0).orElseThrow().powerCapW());
    }

    @Test
    void setPowerCap_withinHalfAWattOfTheRange_isClampedIntoIt() {
        NVML.root(true);
        t.setPowerCap(GpuVendor.NVIDIA, 0, 350.4);
        assertEquals(350000, NVML.intCall("power_limit_mw", 0));
        t.setPowerCap(GpuVendor.NVIDIA, 0, 99.5);
        assertEquals(100000, NVML.intCall("power_limit_mw", 0));
    }

    @Test
    void setPowerCap_outOfRange_isRejectedBeforeTheDriverIsCalled() {
        NVML.root(true);
        ThermalException e = refused(Kind.OUT_OF_RANGE, () -> t.setPowerCap(GpuVendor.NVIDIA, 0, 350.6));
        assertEquals(OptionalDouble.of(350.6), e.requested());
        assertEquals(OptionalDouble.of(100), e.min());
        assertEquals(OptionalDouble.of(350), e.max());
        assertTrue(e.getMessage().contains("351 W is outside the allowed range 100..350 W"), e.getMessage());
        refused(Kind.OUT_OF_RANGE, () -> t.setPowerCap(GpuVendor.NVIDIA, 0, 99.4));
        refused(Kind.OUT_OF_RANGE, () -> t.setPowerCap(GpuVendor.NVIDIA, 0, Double.NaN));
        refused(Kind.OUT_OF_RANGE, () -> t.setPowerCap(GpuVendor.NVIDIA, 1, 100));
        assertEquals(0, NVML.calls("nvmlDeviceSetPowerManagementLimit"));
    }

    @Test
    void resetPowerCap_restoresTheDefault() {
        NVML.root(true);
        t.setPowerCap(GpuVendor.NVIDIA, 0, 200);
        t.resetPowerCap(GpuVendor.NVIDIA, 0);
        assertEquals(300000, NVML.intCall("power_limit_mw", 0));
        NVML.root(false);
        refused(Kind.PERMISSION_DENIED, () -> t.resetPowerCap(GpuVendor.NVIDIA, 0));
    }

    @Test
    void driverError_carriesItsCodeAndText() {
        NVML.root(true);
        NVML.force("nvmlDeviceSetPowerManagementLimit", 15);
        ThermalException e = refused(Kind.DRIVER, () -> t.setPowerCap(GpuVendor.NVIDIA, 0, 200));
        assertEquals(OptionalInt.of(15), e.code());
        assertTrue(e.getMessage().contains("\"GPU is lost\" (code 15)"), e.getMessage());
        NVML.force("nvmlDeviceGetPowerManagementLimitConstraints", 999);
        ThermalException range = refused(Kind.DRIVER, () -> t.powerCapRange(GpuVendor.NVIDIA, 0));
        assertEquals(OptionalInt.of(999), range.code());
    }

    @Test
    void noSuchDevice_forEveryControl() {
        List<Executable> calls = List.of(() -> t.powerCapRange(GpuVendor.NVIDIA, 2), () -> t.setPowerCap(GpuVendor.NVIDIA, 2, 100),
                () -> t.resetPowerCap(GpuVendor.NVIDIA, -1), () -> t.setLockedClocks(GpuVendor.NVIDIA, 2, 100, 200),
                () -> t.resetLockedClocks(GpuVendor.NVIDIA, 5), () -> t.setFanPercent(GpuVendor.NVIDIA, 2, 50),
                () -> t.resetFan(GpuVendor.NVIDIA, 2));
        for (Executable c : calls) {
            ThermalException e = refused(Kind.NO_SUCH_DEVICE, c);
            assertTrue(e.getMessage().contains("NVML sees 2 GPUs"), e.getMessage());
        }
    }

    @Test
    void handleLookupFailing_isNoSuchDevice() {
        NVML.force("nvmlDeviceGetHandleByIndex_v2", 6); // NVML_ERROR_NOT_FOUND
        refused(Kind.NO_SUCH_DEVICE, () -> t.powerCapRange(GpuVendor.NVIDIA, 0));
        assertEquals(List.of(), t.allGpuThermal(), "a device without a handle cannot be read");
    }

    /* ---- locked clocks ---- */

    @Test
    void lockedClocks_asRootSetAndReset() {
        NVML.root(true);
        t.setLockedClocks(GpuVendor.NVIDIA, 0, 1000, 1500);
        assertEquals(1000, NVML.intCall("locked_clock", 0, 0));
        assertEquals(1500, NVML.intCall("locked_clock", 0, 1));
        t.resetLockedClocks(GpuVendor.NVIDIA, 0);
        assertEquals(0, NVML.intCall("locked_clock", 0, 1));
    }

    @Test
    void lockedClocks_withoutRootUnsupportedOrBadArguments() {
        refused(Kind.PERMISSION_DENIED, () -> t.setLockedClocks(GpuVendor.NVIDIA, 0, 1000, 1500));
        refused(Kind.PERMISSION_DENIED, () -> t.resetLockedClocks(GpuVendor.NVIDIA, 0));
        NVML.root(true);
        ThermalException e = refused(Kind.UNSUPPORTED, () -> t.setLockedClocks(GpuVendor.NVIDIA, 1, 1000, 1500));
        assertEquals(OptionalInt.of(3), e.code());
        assertTrue(e.getMessage().contains("Not Supported"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.setLockedClocks(GpuVendor.NVIDIA, 0, 1500, 1000));
        assertThrows(IllegalArgumentException.class, () -> t.setLockedClocks(GpuVendor.NVIDIA, 0, -1, 1000));
    }

    /* ---- fans ---- */

    @Test
    void fan_asRootSetsEveryFanThenResetsToAutomatic() {
        NVML.root(true);
        t.setFanPercent(GpuVendor.NVIDIA, 0, 70);
        assertEquals(70, NVML.intCall("fan_percent", 0, 0));
        assertEquals(70, NVML.intCall("fan_percent", 0, 1));
        assertEquals(70, t.deviceThermal(GpuVendor.NVIDIA, 0).orElseThrow().fanPercent());
        t.resetFan(GpuVendor.NVIDIA, 0);
        assertEquals(-1, NVML.intCall("fan_percent", 0, 0), "automatic");
        assertEquals(-1, NVML.intCall("fan_percent", 0, 1), "automatic");
        assertEquals(42, t.deviceThermal(GpuVendor.NVIDIA, 0).orElseThrow().fanPercent());
    }

    @Test
    void fan_withoutRootPassiveBoardOrBadPercent() {
        refused(Kind.PERMISSION_DENIED, () -> t.setFanPercent(GpuVendor.NVIDIA, 0, 70));
        refused(Kind.PERMISSION_DENIED, () -> t.resetFan(GpuVendor.NVIDIA, 0));
        NVML.root(true);
        refused(Kind.UNSUPPORTED, () -> t.setFanPercent(GpuVendor.NVIDIA, 1, 70));
        refused(Kind.UNSUPPORTED, () -> t.resetFan(GpuVendor.NVIDIA, 1));
        int driverCalls = NVML.calls("nvmlDeviceSetFanSpeed_v2");
        ThermalException e = refused(Kind.OUT_OF_RANGE, () -> t.setFanPercent(GpuVendor.NVIDIA, 0, 101));
        assertEquals(OptionalDouble.of(101), e.requested());
        assertEquals(OptionalDouble.of(0), e.min());
        assertEquals(OptionalDouble.of(100), e.max());
        refused(Kind.OUT_OF_RANGE, () -> t.setFanPercent(GpuVendor.NVIDIA, 0, -1));
        assertEquals(driverCalls, NVML.calls("nvmlDeviceSetFanSpeed_v2"), "out-of-range percentages never reach the driver");
    }
}
