package dev.rlx.hw;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rlx.hw.ThermalException.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/** NVIDIA GPUs through NVML ({@code libnvidia-ml}), the library {@code nvidia-smi} uses. */
final class NvmlProvider extends GpuTelemetryProvider {
    // nvmlReturn_t values (nvml.h).
    static final int SUCCESS = 0;
    static final int ERROR_UNINITIALIZED = 1;
    static final int ERROR_INVALID_ARGUMENT = 2;
    static final int ERROR_NOT_SUPPORTED = 3;
    static final int ERROR_NO_PERMISSION = 4;
    static final int ERROR_NOT_FOUND = 6;
    static final int ERROR_DRIVER_NOT_LOADED = 9;
    static final int ERROR_LIBRARY_NOT_FOUND = 12;
    static final int ERROR_FUNCTION_NOT_FOUND = 13;
    static final int TEMPERATURE_GPU = 0;
    static final int CLOCK_SM = 1;
    static final int CLOCK_MEM = 2;
    /** NVML_DEVICE_NAME_V2_BUFFER_SIZE. */
    static final int NAME_BUFFER = 96;

    private static final FunctionDescriptor DEV_OUT = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    private static final FunctionDescriptor DEV_INT_OUT = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);

    /** The NVML functions RLX uses; any but the first three may be missing from an old driver. */
    private record Api(MethodHandle init, MethodHandle count, MethodHandle handle, MethodHandle name,
            MethodHandle temperature, MethodHandle powerUsage, MethodHandle enforcedLimit, MethodHandle clockInfo,
            MethodHandle fanSpeed, MethodHandle utilization, MethodHandle limitConstraints, MethodHandle defaultLimit,
            MethodHandle setLimit, MethodHandle setLockedClocks, MethodHandle resetLockedClocks, MethodHandle numFans,
            MethodHandle setFanSpeed, MethodHandle setDefaultFanSpeed, MethodHandle errorString) {
        static Api bind(NativeLibrary l) {
            return new Api(l.find("nvmlInit_v2", FunctionDescriptor.of(JAVA_INT)),
                    l.find("nvmlDeviceGetCount_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                    l.find("nvmlDeviceGetHandleByIndex_v2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS)),
                    l.find("nvmlDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT)),
                    l.find("nvmlDeviceGetTemperature", DEV_INT_OUT),
                    l.find("nvmlDeviceGetPowerUsage", DEV_OUT),
                    l.find("nvmlDeviceGetEnforcedPowerLimit", DEV_OUT),
                    l.find("nvmlDeviceGetClockInfo", DEV_INT_OUT),
                    l.find("nvmlDeviceGetFanSpeed", DEV_OUT),
                    l.find("nvmlDeviceGetUtilizationRates", DEV_OUT),
                    l.find("nvmlDeviceGetPowerManagementLimitConstraints", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)),
                    l.find("nvmlDeviceGetPowerManagementDefaultLimit", DEV_OUT),
                    l.find("nvmlDeviceSetPowerManagementLimit", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)),
                    l.find("nvmlDeviceSetGpuLockedClocks", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT)),
                    l.find("nvmlDeviceResetGpuLockedClocks", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                    l.find("nvmlDeviceGetNumFans", DEV_OUT),
                    l.find("nvmlDeviceSetFanSpeed_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT)),
                    l.find("nvmlDeviceSetDefaultFanSpeed_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)),
                    l.find("nvmlErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT)));
        }
    }

    private Api api; // set once by bind(), under the base class's lock

    NvmlProvider(List<String> candidates) {
        super(GpuVendor.NVIDIA, "NVML", candidates, "install the NVIDIA driver, or set "
                + GpuTelemetry.NVML_ENV + " (or -D" + GpuTelemetry.NVML_PROPERTY + ") to libnvidia-ml.so's path");
    }

    @Override
    String bind(NativeLibrary lib) {
        Api a = Api.bind(lib);
        String missing = a.init() == null ? "nvmlInit_v2" : a.count() == null ? "nvmlDeviceGetCount_v2"
                : a.handle() == null ? "nvmlDeviceGetHandleByIndex_v2" : null;
        if (missing != null) {
            return "no " + missing + " in the library (not NVML, or a driver older than CUDA 5)";
        }
        api = a;
        // NVML counts initialisations; the library stays loaded for the JVM's life, so there is no matching shutdown.
        int st = NativeLibrary.call(a.init());
        return st == SUCCESS ? null : "initialisation failed: " + statusText(st) + " (code " + st + ")";
    }

    @Override
    int countDevices() {
        try (Arena a = Arena.ofConfined()) {
            Long n = NativeLibrary.u32(NativeLibrary.out(a, api.count(), JAVA_INT));
            return n == null ? 0 : (int) Math.min(n, CpuList.MAX_CPU); // a count past any real machine is garbage
        }
    }

    @Override
    Kind kindOf(int status) {
        return switch (status) {
            case ERROR_NOT_SUPPORTED, ERROR_FUNCTION_NOT_FOUND -> Kind.UNSUPPORTED;
            case ERROR_NO_PERMISSION -> Kind.PERMISSION_DENIED;
            case ERROR_UNINITIALIZED, ERROR_DRIVER_NOT_LOADED -> Kind.UNAVAILABLE;
            case ERROR_LIBRARY_NOT_FOUND -> Kind.LIBRARY_MISSING;
            default -> Kind.DRIVER;
        };
    }

    @Override
    String statusText(int status) {
        String s = api == null || api.errorString() == null ? null
                : NativeLibrary.string(invokePointer(api.errorString(), status), 256);
        return s == null || s.isBlank() ? "status " + status : s;
    }

    @Override
    GpuThermal read(int index) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment dev = NativeLibrary.out(a, api.handle(), ADDRESS, index);
            if (dev == null) {
                return null;
            }
            MemorySegment h = dev.get(ADDRESS, 0);
            String name = null;
            if (api.name() != null) {
                MemorySegment buf = a.allocate(NAME_BUFFER);
                if (NativeLibrary.call(api.name(), h, buf, NAME_BUFFER) == SUCCESS) {
                    name = NativeLibrary.string(buf);
                }
            }
            Long temp = NativeLibrary.u32(NativeLibrary.out(a, api.temperature(), JAVA_INT, h, TEMPERATURE_GPU));
            Long powerMw = NativeLibrary.u32(NativeLibrary.out(a, api.powerUsage(), JAVA_INT, h));
            Long capMw = NativeLibrary.u32(NativeLibrary.out(a, api.enforcedLimit(), JAVA_INT, h));
            Long sm = NativeLibrary.u32(NativeLibrary.out(a, api.clockInfo(), JAVA_INT, h, CLOCK_SM));
            Long mem = NativeLibrary.u32(NativeLibrary.out(a, api.clockInfo(), JAVA_INT, h, CLOCK_MEM));
            Long fan = NativeLibrary.u32(NativeLibrary.out(a, api.fanSpeed(), JAVA_INT, h));
            // nvmlUtilization_t { unsigned int gpu; unsigned int memory; }
            MemorySegment util = NativeLibrary.out(a, api.utilization(), MemoryLayout.sequenceLayout(2, JAVA_INT), h);
            return new GpuThermal(GpuVendor.NVIDIA, index, name, temp == null ? null : temp.doubleValue(), null, null,
                    watts(powerMw), watts(capMw), NativeLibrary.asInt(sm), NativeLibrary.asInt(mem), NativeLibrary.asInt(fan),
                    util == null ? null : NativeLibrary.asInt(Integer.toUnsignedLong(util.getAtIndex(JAVA_INT, 0))),
                    util == null ? null : NativeLibrary.asInt(Integer.toUnsignedLong(util.getAtIndex(JAVA_INT, 1))));
        }
    }

    @Override
    GpuTelemetry.PowerRange powerCapRange(int index, String action) {
        MethodHandle f = require(api.limitConstraints(), "nvmlDeviceGetPowerManagementLimitConstraints", index, action);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = handle(a, index, action);
            MemorySegment min = a.allocate(JAVA_INT);
            MemorySegment max = a.allocate(JAVA_INT);
            check(NativeLibrary.call(f, h, min, max), index, action);
            long lo = Integer.toUnsignedLong(min.get(JAVA_INT, 0));
            long hi = Integer.toUnsignedLong(max.get(JAVA_INT, 0));
            if (lo > hi) {
                throw ThermalException.of(Kind.DRIVER, vendor, index, action,
                        "NVML reported a power range whose minimum " + lo + " mW exceeds its maximum " + hi + " mW");
            }
            return new GpuTelemetry.PowerRange(lo / 1000.0, hi / 1000.0);
        }
    }

    @Override
    void setPowerCap(int index, double watts, String action) {
        MethodHandle f = require(api.setLimit(), "nvmlDeviceSetPowerManagementLimit", index, action);
        try (Arena a = Arena.ofConfined()) {
            check(NativeLibrary.call(f, handle(a, index, action), (int) Math.round(watts * 1000)), index, action);
        }
    }

    @Override
    void resetPowerCap(int index, String action) {
        MethodHandle def = require(api.defaultLimit(), "nvmlDeviceGetPowerManagementDefaultLimit", index, action);
        MethodHandle set = require(api.setLimit(), "nvmlDeviceSetPowerManagementLimit", index, action);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = handle(a, index, action);
            MemorySegment mw = a.allocate(JAVA_INT);
            check(NativeLibrary.call(def, h, mw), index, action);
            check(NativeLibrary.call(set, h, mw.get(JAVA_INT, 0)), index, action);
        }
    }

    /** Locks the graphics clock to {@code [minMhz, maxMhz]}; NVML checks the values against the board's clocks. */
    void setLockedClocks(int index, int minMhz, int maxMhz, String action) {
        MethodHandle f = require(api.setLockedClocks(), "nvmlDeviceSetGpuLockedClocks", index, action);
        try (Arena a = Arena.ofConfined()) {
            check(NativeLibrary.call(f, handle(a, index, action), minMhz, maxMhz), index, action);
        }
    }

    void resetLockedClocks(int index, String action) {
        MethodHandle f = require(api.resetLockedClocks(), "nvmlDeviceResetGpuLockedClocks", index, action);
        try (Arena a = Arena.ofConfined()) {
            check(NativeLibrary.call(f, handle(a, index, action)), index, action);
        }
    }

    @Override
    void setFanPercent(int index, int percent, String action) {
        MethodHandle f = require(api.setFanSpeed(), "nvmlDeviceSetFanSpeed_v2", index, action);
        forEachFan(index, action, (h, fan) -> NativeLibrary.call(f, h, fan, percent));
    }

    @Override
    void resetFan(int index, String action) {
        MethodHandle f = require(api.setDefaultFanSpeed(), "nvmlDeviceSetDefaultFanSpeed_v2", index, action);
        forEachFan(index, action, (h, fan) -> NativeLibrary.call(f, h, fan));
    }

    private interface FanCall {
        int apply(MemorySegment handle, int fan);
    }

    /** Applies a call to every fan; stops at the first failure. */
    private void forEachFan(int index, String action, FanCall call) {
        MethodHandle num = require(api.numFans(), "nvmlDeviceGetNumFans", index, action);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = handle(a, index, action);
            MemorySegment n = a.allocate(JAVA_INT);
            check(NativeLibrary.call(num, h, n), index, action);
            int fans = n.get(JAVA_INT, 0);
            if (fans <= 0 || fans > 64) {
                throw ThermalException.of(Kind.UNSUPPORTED, vendor, index, action,
                        fans == 0 ? "the board has no fans NVML can drive" : "NVML reported " + Integer.toUnsignedString(fans) + " fans");
            }
            for (int fan = 0; fan < fans; fan++) {
                check(call.apply(h, fan), index, action);
            }
        }
    }

    /** The NVML handle of an existing device (see {@link #requireDevice}). */
    private MemorySegment handle(Arena a, int index, String action) {
        MemorySegment out = a.allocate(ADDRESS);
        int st = NativeLibrary.call(api.handle(), index, out);
        if (st == ERROR_INVALID_ARGUMENT || st == ERROR_NOT_FOUND) {
            throw ThermalException.of(Kind.NO_SUCH_DEVICE, vendor, index, action,
                    "NVML has no device " + index + " (" + statusText(st) + ")");
        }
        check(st, index, action);
        return out.get(ADDRESS, 0);
    }

    private static Double watts(Long milliwatts) {
        return milliwatts == null ? null : milliwatts / 1000.0;
    }

    private static MemorySegment invokePointer(MethodHandle h, int arg) {
        try {
            return (MemorySegment) h.invokeExact(arg);
        } catch (Throwable t) {
            return null;
        }
    }
}
