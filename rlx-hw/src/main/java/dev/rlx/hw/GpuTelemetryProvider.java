package dev.rlx.hw;

import dev.rlx.hw.ThermalException.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One vendor's management library behind a common shape: loaded and initialised lazily on first use (once, whatever
 * the outcome), devices counted, sensors read, knobs turned. Reads never throw; control calls throw
 * {@link ThermalException}.
 */
abstract sealed class GpuTelemetryProvider permits NvmlProvider, RocmSmiProvider {
    final GpuVendor vendor;
    /** The library's usual name, e.g. "NVML". */
    final String library;
    private final List<String> candidates;
    private final String missingAdvice;
    private Opened opened; // guarded by this

    /**
     * The outcome of loading: {@code failure == null} means usable and {@code status} is what was loaded; otherwise
     * {@code status} is the short reason and {@code detail} the full one.
     */
    private record Opened(Kind failure, String status, String detail) {}

    /**
     * @param candidates    paths or names to load, first that loads wins
     * @param missingAdvice what to do when none loads, e.g. "install the NVIDIA driver or set RLX_NVML_LIBRARY"
     */
    GpuTelemetryProvider(GpuVendor vendor, String library, List<String> candidates, String missingAdvice) {
        this.vendor = vendor;
        this.library = library;
        this.candidates = List.copyOf(candidates);
        this.missingAdvice = missingAdvice;
    }

    /**
     * Looks up the library's functions and initialises it.
     *
     * @return null when usable, else why not (e.g. "initialisation failed: Driver Not Loaded (code 9)")
     */
    abstract String bind(NativeLibrary lib);

    /** Devices the library sees now; 0 on any error. Called only after a successful {@link #bind}. */
    abstract int countDevices();

    /** All sensors of an existing device; null when even the device handle cannot be had. */
    abstract GpuThermal read(int index);

    /** The vendor's status code as a failure kind. */
    abstract Kind kindOf(int status);

    /** The vendor's text for a status code; never null. */
    abstract String statusText(int status);

    abstract GpuTelemetry.PowerRange powerCapRange(int index, String action);

    /** Sets the cap; {@code watts} is already validated against {@link #powerCapRange}. */
    abstract void setPowerCap(int index, double watts, String action);

    abstract void resetPowerCap(int index, String action);

    /** Sets every fan of the device; {@code percent} is already validated to 0..100. */
    abstract void setFanPercent(int index, int percent, String action);

    abstract void resetFan(int index, String action);

    private synchronized Opened open() {
        if (opened == null) {
            opened = load();
        }
        return opened;
    }

    private Opened load() {
        Optional<NativeLibrary> lib;
        try {
            lib = NativeLibrary.load(candidates);
        } catch (IllegalCallerException e) { // the JVM runs with --illegal-native-access=deny and no grant for RLX
            return new Opened(Kind.UNAVAILABLE, "native access denied",
                    library + " cannot be loaded: native access is denied; run the JVM with --enable-native-access=ALL-UNNAMED");
        }
        if (lib.isEmpty()) {
            return new Opened(Kind.LIBRARY_MISSING, "library not found",
                    library + " library not found (tried " + String.join(", ", candidates) + "); " + missingAdvice);
        }
        String failure;
        try {
            failure = bind(lib.get());
        } catch (RuntimeException e) { // e.g. native access denied to this module
            failure = "cannot bind " + lib.get().source() + ": " + e.getMessage();
        }
        return failure == null ? new Opened(null, lib.get().source(), null)
                : new Opened(Kind.UNAVAILABLE, failure, library + " from " + lib.get().source() + ": " + failure);
    }

    /** One line on the state of this source, e.g. "2 devices (libnvidia-ml.so.1)" or "library not found". */
    final String status() {
        Opened o = open();
        if (o.failure() != null) {
            return o.status();
        }
        int n = deviceCount();
        return (n == 0 ? "no devices" : n + (n == 1 ? " device" : " devices")) + " (" + o.status() + ")";
    }

    /** Devices the library sees; 0 when it is missing or unusable. */
    final int deviceCount() {
        return open().failure() == null ? Math.max(0, countDevices()) : 0;
    }

    /** A reading of every device, by index; empty when the library is missing. */
    final List<GpuThermal> all() {
        List<GpuThermal> out = new ArrayList<>();
        for (int i = 0, n = deviceCount(); i < n; i++) {
            GpuThermal g = read(i);
            if (g != null) {
                out.add(g);
            }
        }
        return out;
    }

    /** A reading of device {@code index}; empty when the library is missing or there is no such device. */
    final Optional<GpuThermal> thermal(int index) {
        if (index < 0 || index >= deviceCount()) {
            return Optional.empty();
        }
        return Optional.ofNullable(read(index));
    }

    /** Throws why device {@code index} cannot be controlled: library missing or unusable, or no such device. */
    final void requireDevice(int index, String action) {
        Opened o = open();
        if (o.failure() != null) {
            throw ThermalException.of(o.failure(), vendor, index, action, o.detail());
        }
        int n = deviceCount();
        if (index < 0 || index >= n) {
            throw ThermalException.of(Kind.NO_SUCH_DEVICE, vendor, index, action,
                    "no such device (" + library + " sees " + n + (n == 1 ? " GPU" : " GPUs") + ")");
        }
    }

    /** Throws for a status other than success. */
    final void check(int status, int index, String action) {
        if (status != 0) {
            throw ThermalException.driver(kindOf(status), vendor, index, action, library, status, statusText(status));
        }
    }

    /** Throws {@link Kind#UNSUPPORTED} when this release of the library lacks a function. */
    final <T> T require(T function, String symbol, int index, String action) {
        if (function == null) {
            throw ThermalException.of(Kind.UNSUPPORTED, vendor, index, action,
                    "this " + library + " has no " + symbol + " (the driver is too old)");
        }
        return function;
    }
}
