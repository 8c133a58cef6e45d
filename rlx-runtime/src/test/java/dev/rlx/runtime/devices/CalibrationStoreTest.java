package dev.rlx.runtime.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.runtime.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CalibrationStoreTest {
    private static final String FP = "0123456789abcdef";

    private static Calibration sample(long at) {
        return new Calibration(Calibration.SCHEMA_VERSION, Device.CPU, "cpu (test)", FP, 11.5, 95.25, 4_000, 250, 12.5,
                9.75, true, at);
    }

    @Test
    void roundTrip_isExact_andFileIsKeyedByDeviceAndFingerprint(@TempDir Path dir) throws Exception {
        CalibrationStore store = new CalibrationStore(dir);
        long now = System.currentTimeMillis();
        assertEquals("missing", store.load(Device.CPU, "cpu (test)", FP, now).why());
        assertTrue(store.store(sample(now)));
        Path f = dir.resolve("cpu-calib-" + FP + ".json");
        assertTrue(Files.isRegularFile(f));
        String text = Files.readString(f);
        assertTrue(text.contains("\"smallGemmGflops\" : 11.5") && text.contains("\"schemaVersion\" : 1"), text);
        var found = store.load(Device.CPU, "cpu (test)", FP, now);
        assertEquals(sample(now), found.calibration().orElseThrow());
        try (var s = Files.list(dir)) {
            assertEquals(1, s.count(), "no temporary file left behind");
        }
    }

    @Test
    void staleOrCorruptFiles_areNotTrusted(@TempDir Path dir) throws Exception {
        CalibrationStore store = new CalibrationStore(dir);
        long now = System.currentTimeMillis();
        Path f = store.file(Device.CPU, FP);
        store.store(sample(now));
        assertTrue(store.load(Device.CPU, "cpu (other threads)", FP, now).why().startsWith("stale"));
        assertTrue(store.load(Device.CPU, "cpu (test)", FP, now + CalibrationStore.MAX_AGE.toMillis() + 1).why()
                .startsWith("stale"));
        Files.writeString(f, Files.readString(f).replace("\"schemaVersion\" : 1", "\"schemaVersion\" : 0"));
        assertTrue(store.load(Device.CPU, "cpu (test)", FP, now).why().startsWith("stale (schema"));
        for (String bad : new String[] {"", "{", "[1,2]", "{\"schemaVersion\": 1}", "not json at all",
                CalibrationStore.json(sample(now)).replace("95.25", "9.5e10"), // FLOP/s stored where GFLOP/s belongs
                CalibrationStore.json(sample(now)).replace("95.25", "0.268"), // an interpreted CPU kernel's rate
                CalibrationStore.json(sample(now)).replace("\"cpu (test)\"", "7"),
                CalibrationStore.json(sample(now)) + "{}"}) {
            Files.writeString(f, bad);
            var r = store.load(Device.CPU, "cpu (test)", FP, now);
            assertFalse(r.calibration().isPresent(), bad);
            assertTrue(r.why().startsWith("corrupt"), r.why() + " for " + bad);
        }
    }

    /** Measured once with the backend's own kernels, then read back by a fresh model source (the next process). */
    @Test
    void calibrated_measuresOnce_reusesTheFile_andReplacesACorruptOne(@TempDir Path dir) throws Exception {
        dev.rlx.runtime.BackendRegistry.global().register(Device.TPU, () -> dev.rlx.runtime.TestBackends.fullFake(Device.TPU));
        try (dev.rlx.runtime.Session s = new dev.rlx.runtime.Session(Device.TPU)) {
            CalibrationStore store = new CalibrationStore(dir);
            long t0 = System.nanoTime();
            BackendCostModel first = CostModels.calibrated(store, FP).model(s);
            long measureMs = (System.nanoTime() - t0) / 1_000_000;
            CostUnits.check(first);
            Path f = store.file(Device.TPU, FP);
            String written = Files.readString(f);
            CostModels next = CostModels.calibrated(store, FP);
            BackendCostModel again = next.model(s);
            assertTrue(next.source(Device.TPU).startsWith("stored"), next.source(Device.TPU));
            assertEquals(first.sgemmGflops(128, 256, 256), again.sgemmGflops(128, 256, 256));
            assertEquals(written, Files.readString(f), "a good file is not rewritten");
            Files.writeString(f, "{\"schemaVersion\": 1, \"device\": \"tpu\"");
            CostModels third = CostModels.calibrated(store, FP);
            CostUnits.check(third.model(s));
            assertTrue(third.source(Device.TPU).startsWith("measured (file corrupt"), third.source(Device.TPU));
            assertNotEquals("{\"schemaVersion\": 1, \"device\": \"tpu\"", Files.readString(f));
            assertTrue(CalibrationStore.parse(Files.readString(f)).schemaVersion() == 1);
            assertTrue(measureMs < 5_000, "measuring took " + measureMs + " ms");
        } finally {
            dev.rlx.runtime.BackendRegistry.global().unregister(Device.TPU);
        }
    }
}
