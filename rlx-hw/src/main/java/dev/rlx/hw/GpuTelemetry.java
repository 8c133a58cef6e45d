package dev.rlx.hw;

import dev.rlx.hw.ThermalException.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * GPU sensors and power, clock and fan knobs, through the vendors' management libraries called with FFM: NVML for
 * NVIDIA ({@link GpuVendor#NVIDIA}) and ROCm SMI for AMD ({@link GpuVendor#AMD}).
 *
 * <p>Reading is unprivileged and never throws: without a GPU or a library the lists are empty. A library is loaded
 * and initialised on first use, once. The control methods need root, as the drivers decide; they throw
 * {@link ThermalException} saying why a call did not happen. Thread-safe.
 */
public final class GpuTelemetry {
    /** Slack allowed when checking a power cap against the device's range, so 350.4 W on a 350 W board is 350 W. */
    public static final double POWER_CAP_TOLERANCE_W = 0.5;
    /** System property naming the NVML library (a path or a name the dynamic linker finds). */
    public static final String NVML_PROPERTY = "rlx.nvml.library";
    /** Environment variable naming the NVML library, used when the property is not set. */
    public static final String NVML_ENV = "RLX_NVML_LIBRARY";
    /** System property naming the ROCm SMI library. */
    public static final String ROCM_SMI_PROPERTY = "rlx.rocm_smi.library";
    /** Environment variable naming the ROCm SMI library, used when the property is not set. */
    public static final String ROCM_SMI_ENV = "RLX_ROCM_SMI_LIBRARY";

    private static final boolean WINDOWS = System.getProperty("os.name", "").startsWith("Windows");
    /** Where the vendors install their libraries: the driver's soname first, ROCm's fixed prefix last. */
    static final List<String> NVML_DEFAULTS = WINDOWS ? List.of("nvml.dll") : List.of("libnvidia-ml.so.1", "libnvidia-ml.so");
    static final List<String> ROCM_SMI_DEFAULTS = WINDOWS ? List.of() : List.of("librocm_smi64.so",
            "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5", "/opt/rocm/lib/librocm_smi64.so");

    private final NvmlProvider nvml;
    private final RocmSmiProvider rocm;

    /**
     * The range a device's power cap may be set in.
     *
     * @param minW lowest cap in watts
     * @param maxW highest cap in watts
     */
    public record PowerRange(double minW, double maxW) {}

    private GpuTelemetry(List<String> nvmlCandidates, List<String> rocmCandidates) {
        this.nvml = new NvmlProvider(nvmlCandidates);
        this.rocm = new RocmSmiProvider(rocmCandidates);
    }

    private static final class Holder {
        static final GpuTelemetry SYSTEM = new GpuTelemetry(
                override(NVML_PROPERTY, NVML_ENV).map(List::of).orElse(NVML_DEFAULTS),
                override(ROCM_SMI_PROPERTY, ROCM_SMI_ENV).map(List::of).orElse(ROCM_SMI_DEFAULTS));

        private static Optional<String> override(String property, String env) {
            String v = System.getProperty(property);
            if (v == null || v.isBlank()) {
                v = System.getenv(env);
            }
            return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
        }
    }

    /**
     * The machine's GPUs, through the libraries named by {@value #NVML_PROPERTY} / {@value #NVML_ENV} and
     * {@value #ROCM_SMI_PROPERTY} / {@value #ROCM_SMI_ENV}, or else the vendors' usual library names. The settings are
     * read when this is first called.
     */
    public static GpuTelemetry system() {
        return Holder.SYSTEM;
    }

    /**
     * Telemetry through the given libraries, each a file path or a name the dynamic linker finds; null means the
     * vendor's usual names. A library that does not load counts as missing.
     */
    public static GpuTelemetry withLibraries(String nvmlLibrary, String rocmSmiLibrary) {
        return new GpuTelemetry(nvmlLibrary == null ? NVML_DEFAULTS : List.of(nvmlLibrary),
                rocmSmiLibrary == null ? ROCM_SMI_DEFAULTS : List.of(rocmSmiLibrary));
    }

    // ---- reading ----

    /** GPUs of {@code vendor} that its library sees; 0 when the library is missing. */
    public int deviceCount(GpuVendor vendor) {
        return provider(vendor).deviceCount();
    }

    /** A reading of one GPU; empty when the vendor's library is missing or there is no such index. */
    public Optional<GpuThermal> deviceThermal(GpuVendor vendor, int index) {
        return provider(vendor).thermal(index);
    }

    /** A reading of every GPU: NVIDIA's first, then AMD's, each by index. Empty when there are none. */
    public List<GpuThermal> allGpuThermal() {
        List<GpuThermal> out = new ArrayList<>(nvml.all());
        out.addAll(rocm.all());
        return out;
    }

    /**
     * The state of each vendor library, in order NVML then ROCm SMI, e.g. {@code "NVML" -> "2 devices
     * (libnvidia-ml.so.1)"} or {@code "ROCm SMI" -> "library not found"}: why a list is empty.
     */
    public Map<String, String> sources() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(nvml.library, nvml.status());
        m.put(rocm.library, rocm.status());
        return m;
    }

    // ---- control (root only) ----

    /** The range the power cap of a GPU may be set in. */
    public PowerRange powerCapRange(GpuVendor vendor, int index) {
        String action = "read the power cap range";
        return controllable(vendor, index, action).powerCapRange(index, action);
    }

    /**
     * Sets a GPU's power cap. The value is checked against {@link #powerCapRange} (with
     * {@value #POWER_CAP_TOLERANCE_W} W of slack, then clamped into it) before the driver is called.
     *
     * @throws ThermalException {@code OUT_OF_RANGE} with the range, {@code PERMISSION_DENIED} when not root, ...
     */
    public void setPowerCap(GpuVendor vendor, int index, double watts) {
        String action = String.format(Locale.ROOT, "set the power cap to %.1f W", watts);
        GpuTelemetryProvider p = controllable(vendor, index, action);
        PowerRange r = p.powerCapRange(index, action);
        if (!(watts >= r.minW() - POWER_CAP_TOLERANCE_W && watts <= r.maxW() + POWER_CAP_TOLERANCE_W)) {
            throw ThermalException.outOfRange(vendor, index, action, watts, r.minW(), r.maxW(), "W");
        }
        p.setPowerCap(index, Math.clamp(watts, r.minW(), r.maxW()), action);
    }

    /** Restores a GPU's default power cap. */
    public void resetPowerCap(GpuVendor vendor, int index) {
        String action = "reset the power cap";
        controllable(vendor, index, action).resetPowerCap(index, action);
    }

    /**
     * Locks a GPU's graphics clock into {@code [minMhz, maxMhz]}. NVIDIA only: AMD GPUs throw
     * {@code UNSUPPORTED}.
     *
     * @throws IllegalArgumentException when {@code minMhz} is negative or above {@code maxMhz}
     */
    public void setLockedClocks(GpuVendor vendor, int index, int minMhz, int maxMhz) {
        if (minMhz < 0 || minMhz > maxMhz) {
            throw new IllegalArgumentException("locked clocks need 0 <= min <= max, got min " + minMhz
                    + " MHz and max " + maxMhz + " MHz");
        }
        String action = "lock the clocks to " + minMhz + ".." + maxMhz + " MHz";
        nvidiaOnly(vendor, index, action).setLockedClocks(index, minMhz, maxMhz, action);
    }

    /** Lets the driver choose a GPU's clocks again. NVIDIA only. */
    public void resetLockedClocks(GpuVendor vendor, int index) {
        String action = "reset the locked clocks";
        nvidiaOnly(vendor, index, action).resetLockedClocks(index, action);
    }

    /** Sets every fan of a GPU to {@code percent} of its maximum, taking it off automatic control. */
    public void setFanPercent(GpuVendor vendor, int index, int percent) {
        String action = "set the fan speed to " + percent + " %";
        if (percent < 0 || percent > 100) {
            throw ThermalException.outOfRange(vendor, index, action, percent, 0, 100, "%");
        }
        controllable(vendor, index, action).setFanPercent(index, percent, action);
    }

    /** Returns a GPU's fans to automatic control. */
    public void resetFan(GpuVendor vendor, int index) {
        String action = "reset the fan";
        controllable(vendor, index, action).resetFan(index, action);
    }

    private GpuTelemetryProvider provider(GpuVendor vendor) {
        return switch (Objects.requireNonNull(vendor, "vendor")) {
            case NVIDIA -> nvml;
            case AMD -> rocm;
        };
    }

    /** The provider of an existing GPU, or the reason there is none. */
    private GpuTelemetryProvider controllable(GpuVendor vendor, int index, String action) {
        GpuTelemetryProvider p = provider(vendor);
        p.requireDevice(index, action);
        return p;
    }

    private NvmlProvider nvidiaOnly(GpuVendor vendor, int index, String action) {
        if (vendor != GpuVendor.NVIDIA) {
            throw ThermalException.of(Kind.UNSUPPORTED, vendor, index, action,
                    "locked clocks are an NVIDIA (NVML) control; ROCm SMI has no equivalent RLX uses");
        }
        controllable(vendor, index, action);
        return nvml;
    }
}
