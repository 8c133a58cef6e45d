package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Backends found through {@code ServiceLoader} (see {@link TestProviders}) and how overrides stack on them. */
class BackendDiscoveryTest {
    @AfterEach
    void unregister() {
        BackendRegistry.global().unregister(Device.MLX);
        BackendRegistry.global().unregister(Device.ANE);
    }

    @Test
    void discoveredProvider_whoseProbeSucceeds_servesSessions() {
        assertTrue(Device.MLX.isAvailable());
        assertTrue(BackendRegistry.global().registeredDevices().contains(Device.MLX));
        try (Session s = new Session(Device.MLX)) {
            assertEquals("fake-mlx", s.backendName());
        }
    }

    @Test
    void discoveredProvider_whoseProbeFails_isRegisteredButUnavailable() {
        assertFalse(Device.ANE.isAvailable());
        assertTrue(BackendRegistry.global().registeredDevices().contains(Device.ANE));
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> new Session(Device.ANE));
        assertEquals(Device.ANE, e.device());
        assertTrue(e.getMessage().contains("rlx-ane") && e.getMessage().contains("on the class path")
                && e.getMessage().contains("no usable device or driver")
                && e.getMessage().contains("no Neural Engine on this test machine"), e.getMessage());
        assertEquals("no Neural Engine on this test machine", BackendRegistry.global().unavailableReason(Device.ANE));
        assertEquals(null, BackendRegistry.global().unavailableReason(Device.OPENGL), "a probe that throws gives none");
    }

    @Test
    void discoveredProvider_whoseProbeThrows_isUnavailableWithoutThrowing() {
        assertFalse(Device.OPENGL.isAvailable());
        assertFalse(Device.available().contains(Device.OPENGL));
        assertThrows(BackendUnavailableException.class, () -> new Session(Device.OPENGL));
    }

    @Test
    void probes_runOnce() {
        for (int i = 0; i < 5; i++) {
            Device.ANE.isAvailable();
            Device.OPENGL.isAvailable();
            Device.available();
        }
        assertEquals(1, TestProviders.ANE_PROBES.get());
        assertEquals(1, TestProviders.OPENGL_PROBES.get());
    }

    @Test
    void register_overridesADiscoveredBackendAndUnregisterRestoresIt() {
        BackendRegistry.global().register(Device.MLX, () -> FakeBackend.full(Device.MLX, true));
        try (Session s = new Session(Device.MLX)) {
            assertEquals("fake-mlx (staged)", s.backendName());
        }
        BackendRegistry.global().unregister(Device.MLX);
        try (Session s = new Session(Device.MLX)) {
            assertEquals("fake-mlx", s.backendName(), "the discovered backend stays after unregister");
        }
    }

    @Test
    void register_overUnavailableDiscoveredBackend_makesItAvailableUntilUnregistered() {
        BackendRegistry.global().register(Device.ANE, () -> FakeBackend.full(Device.ANE, false));
        assertTrue(Device.ANE.isAvailable());
        new Session(Device.ANE).close();
        BackendRegistry.global().unregister(Device.ANE);
        assertFalse(Device.ANE.isAvailable());
        assertThrows(BackendUnavailableException.class, () -> new Session(Device.ANE));
    }
}
