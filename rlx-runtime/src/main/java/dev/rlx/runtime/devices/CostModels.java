package dev.rlx.runtime.devices;

import dev.rlx.hw.HwSnapshot;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the cost model of a backend comes from. {@link #calibrated} reads the calibration file of the backend on
 * this host, or measures and stores one the first time it is asked (at most once per backend per process);
 * {@link #fixed} gives set models (tests, or a user who knows better). Every model is unit-checked
 * ({@link CostUnits#check}) before it is used.
 */
public interface CostModels {
    /** The model of {@code session}'s backend. */
    BackendCostModel model(Session session);

    /** Where {@code device}'s model came from ("stored", "measured (missing)", "heuristic (...)"), or null. */
    default String source(Device device) {
        return null;
    }

    /**
     * Calibrations from the standard store under the user cache folder ({@code RLX_CACHE_DIR} as it is now), keyed by
     * this host's fingerprint; one source per folder per process.
     */
    static CostModels calibrated() {
        CalibrationStore store = CalibrationStore.standard();
        return Calibrated.BY_FOLDER.computeIfAbsent(store.directory(), d -> new Calibrated(store, Fingerprint::host));
    }

    static CostModels calibrated(CalibrationStore store) {
        return new Calibrated(store, Fingerprint::host);
    }

    static CostModels calibrated(CalibrationStore store, String fingerprint) {
        return new Calibrated(store, () -> fingerprint);
    }

    /** {@code models} for their devices, {@code fallback} for the others. */
    static CostModels fixed(Map<Device, ? extends BackendCostModel> models, CostModels fallback) {
        Map<Device, BackendCostModel> m = new EnumMap<>(Device.class);
        models.forEach((d, model) -> m.put(d, CostUnits.check(model)));
        return new CostModels() {
            @Override
            public BackendCostModel model(Session session) {
                BackendCostModel own = m.get(session.device());
                return own != null ? own : fallback.model(session);
            }

            @Override
            public String source(Device device) {
                return m.containsKey(device) ? "given" : fallback.source(device);
            }
        };
    }

    /** The seed's constants for every device ({@link HeuristicCostModel}); nothing measured. */
    static CostModels heuristic() {
        return new CostModels() {
            @Override
            public BackendCostModel model(Session session) {
                return HeuristicCostModel.of(session.device());
            }

            @Override
            public String source(Device device) {
                return "heuristic";
            }
        };
    }

    /** The host fingerprint, captured once per process. */
    final class Fingerprint {
        private static volatile String host;

        private Fingerprint() {}

        static String host() {
            String h = host;
            if (h == null) {
                h = HwSnapshot.capture().fingerprint();
                host = h;
            }
            return h;
        }
    }

    /** Stored or freshly measured calibrations, remembered per backend for the life of the process. */
    final class Calibrated implements CostModels {
        static final Map<java.nio.file.Path, Calibrated> BY_FOLDER = new ConcurrentHashMap<>();

        private final CalibrationStore store;
        private final java.util.function.Supplier<String> fingerprint;
        private final Map<String, BackendCostModel> models = new ConcurrentHashMap<>();
        private final Map<Device, String> sources = new HashMap<>();

        Calibrated(CalibrationStore store, java.util.function.Supplier<String> fingerprint) {
            this.store = store;
            this.fingerprint = fingerprint;
        }

        @Override
        public BackendCostModel model(Session session) {
            return models.computeIfAbsent(session.device() + "/" + session.backendName(), k -> load(session));
        }

        private BackendCostModel load(Session session) {
            Device d = session.device();
            String fp = fingerprint.get();
            CalibrationStore.Lookup found = store.load(d, session.backendName(), fp, System.currentTimeMillis());
            if (found.calibration().isPresent()) {
                source(d, "stored in " + store.file(d, fp));
                return found.calibration().get().model();
            }
            try {
                Calibrator.Result r = Calibrator.measure(session, fp);
                if (!r.settled()) {
                    // Timings that never settled measure the JIT warming up or a loaded host, not the device: use the
                    // constants for this process and measure again in the next one.
                    source(d, "heuristic (file " + found.why() + "; measured timings did not settle)");
                    return HeuristicCostModel.of(d);
                }
                boolean saved = store.store(r.calibration());
                source(d, "measured (file " + found.why() + ")" + (saved ? ", stored in " + store.file(d, fp)
                        : ", not stored (folder not writable)"));
                return r.calibration().model();
            } catch (RuntimeException e) {
                source(d, "heuristic (measuring failed: " + e.getMessage() + ")");
                return HeuristicCostModel.of(d);
            }
        }

        private synchronized void source(Device d, String s) {
            sources.put(d, s);
        }

        @Override
        public synchronized String source(Device device) {
            return sources.get(device);
        }
    }
}
