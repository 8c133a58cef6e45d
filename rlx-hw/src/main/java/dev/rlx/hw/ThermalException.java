package dev.rlx.hw;

import dev.rlx.ir.RlxException;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * A GPU control call (power cap, locked clocks, fan) that did not happen, and why. The message names the GPU and
 * says what to do (e.g. run as root); {@link #kind()} lets callers branch without parsing it.
 */
public final class ThermalException extends RlxException {
    /** Why the call failed. */
    public enum Kind {
        /** The vendor library loaded but cannot be used (initialisation failed, driver not loaded). */
        UNAVAILABLE,
        /** The vendor library (NVML, ROCm SMI) is not installed or not found. */
        LIBRARY_MISSING,
        /** No GPU with that index. */
        NO_SUCH_DEVICE,
        /** The device, its driver or RLX does not offer this knob (e.g. locked clocks on AMD, fans on a passive card). */
        UNSUPPORTED,
        /** The driver refused: the knob needs root. */
        PERMISSION_DENIED,
        /** The requested value is outside what the device accepts; see {@link #requested()}, {@link #min()}, {@link #max()}. */
        OUT_OF_RANGE,
        /** The driver reported another error; see {@link #code()}. */
        DRIVER
    }

    private final Kind kind;
    private final GpuVendor vendor;
    private final int index;
    private final Integer code;
    private final Double requested;
    private final Double min;
    private final Double max;

    private ThermalException(Kind kind, GpuVendor vendor, int index, String message, Integer code, Double requested,
            Double min, Double max) {
        super(message);
        this.kind = Objects.requireNonNull(kind);
        this.vendor = vendor;
        this.index = index;
        this.code = code;
        this.requested = requested;
        this.min = min;
        this.max = max;
    }

    /** A refusal with a reason; {@code action} reads like "set the power cap". */
    static ThermalException of(Kind kind, GpuVendor vendor, int index, String action, String reason) {
        return new ThermalException(kind, vendor, index, message(kind, vendor, index, action, reason), null, null, null, null);
    }

    /** A vendor status other than success; {@code kind} is the vendor's mapping of {@code code}. */
    static ThermalException driver(Kind kind, GpuVendor vendor, int index, String action, String library, int code,
            String text) {
        String reason = library + " returned \"" + text + "\" (code " + code + ")";
        return new ThermalException(kind, vendor, index, message(kind, vendor, index, action, reason), code, null, null, null);
    }

    /** A value outside {@code [min, max]} (in {@code unit}), rejected before the driver is called. */
    static ThermalException outOfRange(GpuVendor vendor, int index, String action, double requested, double min, double max,
            String unit) {
        String reason = String.format(Locale.ROOT, "%.0f %s is outside the allowed range %.0f..%.0f %s",
                requested, unit, min, max, unit);
        return new ThermalException(Kind.OUT_OF_RANGE, vendor, index, message(Kind.OUT_OF_RANGE, vendor, index, action, reason),
                null, requested, min, max);
    }

    private static String message(Kind kind, GpuVendor vendor, int index, String action, String reason) {
        String advice = kind == Kind.PERMISSION_DENIED ? "; this needs root: run as root or with sudo" : "";
        return "cannot " + action + " on " + vendor.displayName() + " GPU " + index + ": " + reason + advice;
    }

    public Kind kind() {
        return kind;
    }

    /** The maker of the GPU the call was for. */
    public GpuVendor vendor() {
        return vendor;
    }

    /** The GPU index the call was for. */
    public int index() {
        return index;
    }

    /** The vendor library's status code, when the refusal came from the driver. */
    public OptionalInt code() {
        return code == null ? OptionalInt.empty() : OptionalInt.of(code);
    }

    /** For {@link Kind#OUT_OF_RANGE}: the value asked for. */
    public OptionalDouble requested() {
        return requested == null ? OptionalDouble.empty() : OptionalDouble.of(requested);
    }

    /** For {@link Kind#OUT_OF_RANGE}: the smallest value the device accepts. */
    public OptionalDouble min() {
        return min == null ? OptionalDouble.empty() : OptionalDouble.of(min);
    }

    /** For {@link Kind#OUT_OF_RANGE}: the largest value the device accepts. */
    public OptionalDouble max() {
        return max == null ? OptionalDouble.empty() : OptionalDouble.of(max);
    }
}
