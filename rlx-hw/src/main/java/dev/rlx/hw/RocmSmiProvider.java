package dev.rlx.hw;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.hw.ThermalException.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * AMD GPUs through ROCm SMI ({@code librocm_smi64}), the library {@code rocm-smi} uses. Clocks are not read:
 * {@code rsmi_frequencies_t} changed layout between ROCm releases, and reading it with the wrong one is unsafe.
 */
final class RocmSmiProvider extends GpuTelemetryProvider {
    // rsmi_status_t values (rocm_smi.h).
    static final int STATUS_SUCCESS = 0;
    static final int STATUS_NOT_SUPPORTED = 2;
    static final int STATUS_PERMISSION = 4;
    static final int STATUS_INIT_ERROR = 8;
    static final int STATUS_NOT_YET_IMPLEMENTED = 9;
    static final int TEMP_TYPE_EDGE = 0;
    static final int TEMP_TYPE_JUNCTION = 1;
    static final int TEMP_TYPE_MEMORY = 2;
    static final int TEMP_CURRENT = 0;
    /** RSMI_MAX_FAN_SPEED: the fan scale when the device does not say its own maximum. */
    static final long MAX_FAN_SPEED = 255;
    static final int NAME_BUFFER = 256;

    private static final FunctionDescriptor DEV_SENSOR_OUT = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS);
    private static final FunctionDescriptor DEV_OUT = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);

    /** The ROCm SMI functions RLX uses; any but the first two may be missing from an old release. */
    private record Api(MethodHandle init, MethodHandle count, MethodHandle name, MethodHandle temp,
            MethodHandle powerAve, MethodHandle power, MethodHandle cap, MethodHandle capRange, MethodHandle capDefault,
            MethodHandle setCap, MethodHandle fanSpeed, MethodHandle fanMax, MethodHandle setFan, MethodHandle resetFan,
            MethodHandle busy, MethodHandle memBusy, MethodHandle statusString) {
        static Api bind(NativeLibrary l) {
            return new Api(l.find("rsmi_init", FunctionDescriptor.of(JAVA_INT, JAVA_LONG)),
                    l.find("rsmi_num_monitor_devices", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                    l.find("rsmi_dev_name_get", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, NativeLibrary.SIZE_T)),
                    l.find("rsmi_dev_temp_metric_get", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS)),
                    l.find("rsmi_dev_power_ave_get", DEV_SENSOR_OUT),
                    l.find("rsmi_dev_power_get", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS)),
                    l.find("rsmi_dev_power_cap_get", DEV_SENSOR_OUT),
                    l.find("rsmi_dev_power_cap_range_get", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS)),
                    l.find("rsmi_dev_power_cap_default_get", DEV_OUT),
                    l.find("rsmi_dev_power_cap_set", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG)),
                    l.find("rsmi_dev_fan_speed_get", DEV_SENSOR_OUT),
                    l.find("rsmi_dev_fan_speed_max_get", DEV_SENSOR_OUT),
                    l.find("rsmi_dev_fan_speed_set", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG)),
                    l.find("rsmi_dev_fan_reset", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT)),
                    l.find("rsmi_dev_busy_percent_get", DEV_OUT),
                    l.find("rsmi_dev_memory_busy_percent_get", DEV_OUT),
                    l.find("rsmi_status_string", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS)));
        }
    }

    private Api api; // set once by bind(), under the base class's lock

    RocmSmiProvider(List<String> candidates) {
        super(GpuVendor.AMD, "ROCm SMI", candidates, "install ROCm (rocm-smi-lib), or set "
                + GpuTelemetry.ROCM_SMI_ENV + " (or -D" + GpuTelemetry.ROCM_SMI_PROPERTY + ") to librocm_smi64.so's path");
    }

    @Override
    String bind(NativeLibrary lib) {
        Api a = Api.bind(lib);
        String missing = a.init() == null ? "rsmi_init" : a.count() == null ? "rsmi_num_monitor_devices" : null;
        if (missing != null) {
            return "no " + missing + " in the library (not ROCm SMI)";
        }
        api = a;
        int st = NativeLibrary.call(a.init(), 0L);
        return st == STATUS_SUCCESS ? null : "initialisation failed: " + statusText(st) + " (code " + st + ")";
    }

    @Override
    int countDevices() {
        try (Arena a = Arena.ofConfined()) {
            Long n = NativeLibrary.u32(NativeLibrary.out(a, api.count(), JAVA_INT));
            return n == null ? 0 : (int) Math.min(n, CpuList.MAX_CPU);
        }
    }

    @Override
    Kind kindOf(int status) {
        return switch (status) {
            case STATUS_NOT_SUPPORTED, STATUS_NOT_YET_IMPLEMENTED -> Kind.UNSUPPORTED;
            case STATUS_PERMISSION -> Kind.PERMISSION_DENIED;
            case STATUS_INIT_ERROR -> Kind.UNAVAILABLE;
            default -> Kind.DRIVER;
        };
    }

    @Override
    String statusText(int status) {
        String s = null;
        if (api != null && api.statusString() != null) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment p = a.allocate(ADDRESS);
                if (NativeLibrary.call(api.statusString(), status, p) == STATUS_SUCCESS) {
                    s = NativeLibrary.string(p.get(ADDRESS, 0), 256);
                }
            }
        }
        return s == null || s.isBlank() ? "status " + status : s;
    }

    @Override
    GpuThermal read(int index) {
        try (Arena a = Arena.ofConfined()) {
            String name = null;
            if (api.name() != null) {
                MemorySegment buf = a.allocate(NAME_BUFFER);
                if (NativeLibrary.call(api.name(), index, buf, (long) NAME_BUFFER) == STATUS_SUCCESS) {
                    name = NativeLibrary.string(buf);
                }
            }
            Long power = NativeLibrary.nonNegative64(NativeLibrary.out(a, api.powerAve(), JAVA_LONG, index, 0));
            if (power == null && api.power() != null) {
                // Newer boards (MI300) report no average power; rsmi_dev_power_get gives their current socket power.
                MemorySegment type = a.allocate(JAVA_INT);
                MemorySegment out = a.allocate(JAVA_LONG);
                if (NativeLibrary.call(api.power(), index, out, type) == STATUS_SUCCESS) {
                    power = NativeLibrary.nonNegative64(out);
                }
            }
            Long cap = NativeLibrary.nonNegative64(NativeLibrary.out(a, api.cap(), JAVA_LONG, index, 0));
            Long busy = NativeLibrary.u32(NativeLibrary.out(a, api.busy(), JAVA_INT, index));
            Long memBusy = NativeLibrary.u32(NativeLibrary.out(a, api.memBusy(), JAVA_INT, index));
            return new GpuThermal(GpuVendor.AMD, index, name, celsius(a, index, TEMP_TYPE_EDGE),
                    celsius(a, index, TEMP_TYPE_JUNCTION), celsius(a, index, TEMP_TYPE_MEMORY), watts(power), watts(cap),
                    null, null, fanPercent(a, index), NativeLibrary.asInt(busy), NativeLibrary.asInt(memBusy));
        }
    }

    private Double celsius(Arena a, int index, int sensor) {
        MemorySegment out = NativeLibrary.out(a, api.temp(), JAVA_LONG, index, sensor, TEMP_CURRENT);
        return out == null ? null : out.get(JAVA_LONG, 0) / 1000.0; // millidegrees; below zero is a real reading
    }

    private Integer fanPercent(Arena a, int index) {
        Long speed = NativeLibrary.nonNegative64(NativeLibrary.out(a, api.fanSpeed(), JAVA_LONG, index, 0));
        if (speed == null) {
            return null;
        }
        long max = fanMax(a, index);
        return (int) Math.round(100.0 * Math.min(speed, max) / max);
    }

    /** The device's fan scale, or RSMI_MAX_FAN_SPEED when it does not say. */
    private long fanMax(Arena a, int index) {
        Long max = NativeLibrary.nonNegative64(NativeLibrary.out(a, api.fanMax(), JAVA_LONG, index, 0));
        return max == null || max == 0 ? MAX_FAN_SPEED : max;
    }

    @Override
    GpuTelemetry.PowerRange powerCapRange(int index, String action) {
        MethodHandle f = require(api.capRange(), "rsmi_dev_power_cap_range_get", index, action);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment max = a.allocate(JAVA_LONG);
            MemorySegment min = a.allocate(JAVA_LONG);
            check(NativeLibrary.call(f, index, 0, max, min), index, action); // note: max comes first
            long lo = min.get(JAVA_LONG, 0);
            long hi = max.get(JAVA_LONG, 0);
            if (lo < 0 || lo > hi) {
                throw ThermalException.of(Kind.DRIVER, vendor, index, action,
                        "ROCm SMI reported a power range " + Long.toUnsignedString(lo) + ".." + Long.toUnsignedString(hi) + " uW");
            }
            return new GpuTelemetry.PowerRange(lo / 1e6, hi / 1e6);
        }
    }

    @Override
    void setPowerCap(int index, double watts, String action) {
        MethodHandle f = require(api.setCap(), "rsmi_dev_power_cap_set", index, action);
        check(NativeLibrary.call(f, index, 0, Math.round(watts * 1e6)), index, action);
    }

    @Override
    void resetPowerCap(int index, String action) {
        MethodHandle def = require(api.capDefault(), "rsmi_dev_power_cap_default_get", index, action);
        MethodHandle set = require(api.setCap(), "rsmi_dev_power_cap_set", index, action);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment uw = a.allocate(JAVA_LONG);
            check(NativeLibrary.call(def, index, uw), index, action);
            check(NativeLibrary.call(set, index, 0, uw.get(JAVA_LONG, 0)), index, action);
        }
    }

    @Override
    void setFanPercent(int index, int percent, String action) {
        MethodHandle f = require(api.setFan(), "rsmi_dev_fan_speed_set", index, action);
        try (Arena a = Arena.ofConfined()) {
            long raw = Math.round(percent / 100.0 * fanMax(a, index));
            check(NativeLibrary.call(f, index, 0, raw), index, action);
        }
    }

    @Override
    void resetFan(int index, String action) {
        MethodHandle f = require(api.resetFan(), "rsmi_dev_fan_reset", index, action);
        check(NativeLibrary.call(f, index, 0), index, action);
    }

    private static Double watts(Long microwatts) {
        return microwatts == null ? null : microwatts / 1e6;
    }
}
