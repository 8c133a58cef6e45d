package dev.rlx.cuda;

import dev.rlx.cuda.bindings.CuResults;
import dev.rlx.cuda.bindings.CudaDriver;
import dev.rlx.cuda.bindings.CudaLibrary;
import dev.rlx.cuda.bindings.LibraryLocator;
import dev.rlx.hw.GpuTelemetry;
import dev.rlx.hw.GpuThermal;
import dev.rlx.hw.GpuVendor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the CUDA backend finds here: whether it can run, and if not why (the driver library missing, NVRTC
 * missing, {@code CUDA_ERROR_NO_DEVICE}, ...), with the devices the driver lists and where each library was
 * looked for. Probing never throws.
 */
public record CudaProbe(boolean available, String reason, List<CudaDeviceInfo> devices,
                        List<LibraryLocator.Located> libraries, String driverVersion) {
    public CudaProbe {
        devices = List.copyOf(devices);
        libraries = List.copyOf(libraries);
    }

    private static volatile CudaProbe system;

    /** The probe of this process (once: libraries and devices do not change while it runs). */
    public static CudaProbe system() {
        CudaProbe p = system;
        if (p == null) {
            p = probe(LibraryLocator.system(), true);
            system = p;
        }
        return p;
    }

    /**
     * Probes with {@code locator}: loads the driver, initialises it, lists the devices, and checks NVRTC loads
     * (without it no kernel compiles). {@code telemetry}: also read NVML for each device.
     */
    public static CudaProbe probe(LibraryLocator locator, boolean telemetry) {
        List<LibraryLocator.Located> libs = new ArrayList<>();
        for (CudaLibrary l : CudaLibrary.values()) {
            libs.add(locator.locate(l));
        }
        try {
            CudaDriver driver = CudaDriver.load(libs.get(0));
            int r = driver.cuInit(0);
            if (r != CuResults.CUDA_SUCCESS) {
                return new CudaProbe(false, "cuInit failed with " + driver.errorName(r)
                        + (r == CuResults.CUDA_ERROR_NO_DEVICE ? " (the driver sees no GPU)" : "")
                        + " using " + libs.get(0).target(), List.of(), libs, "");
            }
            List<CudaDeviceInfo> devices = devices(driver, telemetry);
            String version = version(driver);
            if (devices.isEmpty()) {
                return new CudaProbe(false, "the driver lists no device", devices, libs, version);
            }
            try {
                dev.rlx.cuda.bindings.Nvrtc.load(libs.get(1)).version();
            } catch (RuntimeException | LinkageError e) {
                return new CudaProbe(false, "NVRTC does not load (" + libs.get(1).how() + "): " + e.getMessage(),
                        devices, libs, version);
            }
            return new CudaProbe(true, "", devices, libs, version);
        } catch (RuntimeException | LinkageError e) {
            return new CudaProbe(false, "no CUDA driver: " + e.getMessage() + " (" + libs.get(0).how() + ")",
                    List.of(), libs, "");
        }
    }

    private static String version(CudaDriver driver) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
            driver.check(driver.cuDriverGetVersion(v), "cuDriverGetVersion", "asking the driver's version");
            int n = v.get(ValueLayout.JAVA_INT, 0);
            return n / 1000 + "." + (n % 1000) / 10;
        }
    }

    static List<CudaDeviceInfo> devices(CudaDriver driver, boolean telemetry) {
        List<CudaDeviceInfo> out = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment count = a.allocate(ValueLayout.JAVA_INT);
            driver.check(driver.cuDeviceGetCount(count), "cuDeviceGetCount", "listing devices");
            GpuTelemetry nvml = telemetry ? GpuTelemetry.system() : null;
            for (int i = 0; i < count.get(ValueLayout.JAVA_INT, 0); i++) {
                MemorySegment dev = a.allocate(ValueLayout.JAVA_INT);
                driver.check(driver.cuDeviceGet(dev, i), "cuDeviceGet", "listing devices");
                int d = dev.get(ValueLayout.JAVA_INT, 0);
                MemorySegment name = a.allocate(256);
                driver.check(driver.cuDeviceGetName(name, 256, d), "cuDeviceGetName", "listing devices");
                MemorySegment mem = a.allocate(ValueLayout.JAVA_LONG);
                driver.check(driver.cuDeviceTotalMem(mem, d), "cuDeviceTotalMem_v2", "listing devices");
                Optional<GpuThermal> t = Optional.empty();
                if (nvml != null) {
                    try {
                        t = nvml.deviceThermal(GpuVendor.NVIDIA, i);
                    } catch (RuntimeException e) {
                        t = Optional.empty(); // telemetry is a courtesy: a failing NVML hides only it
                    }
                }
                out.add(new CudaDeviceInfo(i, name.getString(0),
                        attribute(driver, a, CudaDriver.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d),
                        attribute(driver, a, CudaDriver.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d),
                        mem.get(ValueLayout.JAVA_LONG, 0),
                        attribute(driver, a, CudaDriver.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d),
                        attribute(driver, a, CudaDriver.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, d) != 0, t));
            }
        }
        return out;
    }

    static int attribute(CudaDriver driver, Arena a, int attribute, int device) {
        MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
        driver.check(driver.cuDeviceGetAttribute(v, attribute, device), "cuDeviceGetAttribute",
                "reading attribute " + attribute + " of device " + device);
        return v.get(ValueLayout.JAVA_INT, 0);
    }

    /** The device report: availability or the reason, the driver, each device, and where each library is. */
    public String describe() {
        StringBuilder sb = new StringBuilder("CUDA: ").append(available ? "available" : "not available: " + reason);
        if (!driverVersion.isEmpty()) {
            sb.append("\n  driver API ").append(driverVersion);
        }
        for (CudaDeviceInfo d : devices) {
            sb.append("\n  ").append(d.describe());
        }
        for (LibraryLocator.Located l : libraries) {
            sb.append("\n  ").append(l.library().name().toLowerCase(java.util.Locale.ROOT)).append(": ")
                    .append(l.found() ? l.path().orElseThrow() : "not found").append(" (").append(l.how()).append(')');
        }
        return sb.toString();
    }
}
