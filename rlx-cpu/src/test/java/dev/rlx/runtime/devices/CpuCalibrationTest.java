package dev.rlx.runtime.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CPU backend calibrated with its own kernels: figures in their units, stored for the next process. */
class CpuCalibrationTest {
    @Test
    void cpuCalibration_isInUnits_andStoredWhenSettled(@TempDir Path dir) {
        try (Session s = new Session(Device.CPU)) {
            long t0 = System.nanoTime();
            Calibrator.Result r = Calibrator.measure(s, "test-fingerprint");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("cpu calibration in %d ms (settled %s): %s%n", ms, r.settled(), r.calibration());
            assertTrue(ms < 8_000, "calibration took " + ms + " ms");
            if (!r.settled()) {
                return; // a loaded host or a cold JIT: nothing to check but that it gave up in time
            }
            Calibration c = r.calibration();
            CostUnits.check(c.model());
            assertTrue(c.unifiedMemory(), "CPU buffers are host memory");
            assertEquals(Device.CPU, c.device());
            CalibrationStore store = new CalibrationStore(dir);
            assertTrue(store.store(c));
            assertEquals(c, store.load(Device.CPU, s.backendName(), "test-fingerprint", System.currentTimeMillis())
                    .calibration().orElseThrow());
        }
    }
}
