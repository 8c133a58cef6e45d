package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class TickTest {
    @Test
    void now_isMonotonic() {
        Tick prev = Tick.now();
        for (int i = 0; i < 10_000; i++) {
            Tick t = Tick.now();
            assertTrue(t.nanos() - prev.nanos() >= 0, "clock went backwards");
            prev = t;
        }
        Tick t0 = Tick.now();
        LockSupport.parkNanos(50_000);
        assertTrue(Tick.now().elapsedNs(t0) > 0);
    }

    @Test
    void elapsed_afterASleep_coversTheSleepInEveryUnit() throws InterruptedException {
        Tick t0 = Tick.now();
        Thread.sleep(2);
        Tick t1 = Tick.now();
        long ns = t1.elapsedNs(t0);
        assertTrue(ns >= 1_500_000, ns + " ns");
        assertEquals(ns / 1e3, t1.elapsedUs(t0), 1e-9);
        assertEquals(ns / 1e6, t1.elapsedMs(t0), 1e-12);
        assertTrue(t1.elapsedMs(t0) >= 1.5);
    }

    @Test
    void elapsedNs_earlierTickIsLater_saturatesAtZero() {
        Tick a = new Tick(1_000);
        Tick b = new Tick(5_000);
        assertEquals(4_000, b.elapsedNs(a));
        assertEquals(0, a.elapsedNs(b));
        assertEquals(0.0, a.elapsedMs(b));
        assertEquals(0, a.elapsedNs(a));
    }

    @Test
    void elapsedNs_acrossTheNanoTimeWrap_isTheDifference() {
        // System.nanoTime may wrap: differences, not comparisons, are what is meaningful.
        Tick before = new Tick(Long.MAX_VALUE - 10);
        Tick after = new Tick(Long.MIN_VALUE + 10);
        assertEquals(21, after.elapsedNs(before));
        assertEquals(0, before.elapsedNs(after));
    }

    @Test
    void elapsed_unitConversions() {
        Tick t0 = new Tick(0);
        Tick t1 = new Tick(3_000_000);
        assertEquals(3_000_000, t1.elapsedNs(t0));
        assertEquals(3_000.0, t1.elapsedUs(t0));
        assertEquals(3.0, t1.elapsedMs(t0));
    }

    @Test
    void timeNs_supplier_returnsTheResultAndTheTime() {
        Tick.Timed<String> t = Tick.timeNs(() -> {
            LockSupport.parkNanos(2_000_000);
            return "done";
        });
        assertEquals("done", t.result());
        assertTrue(t.ns() >= 1_500_000, t.ns() + " ns");
    }

    @Test
    void timeNs_runnable_measuresTheWork() {
        int[] ran = {0};
        long ns = Tick.timeNs(() -> {
            ran[0]++;
            LockSupport.parkNanos(1_000_000);
        });
        assertEquals(1, ran[0]);
        assertTrue(ns >= 500_000, ns + " ns");
    }
}
