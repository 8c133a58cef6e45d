package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BackendRegistryTest {
    @AfterEach
    void unregister() {
        BackendRegistry.global().unregister(Device.TPU);
        BackendRegistry.global().unregister(Device.WEBGPU);
    }

    @Test
    void session_deviceWithoutBackend_namesTheDeviceAndTheArtifact() {
        assertFalse(Device.METAL.isAvailable());
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> new Session(Device.METAL));
        assertEquals(Device.METAL, e.device());
        assertTrue(e.getMessage().contains("Metal"), e.getMessage());
        assertTrue(e.getMessage().contains("dev.rlx:rlx-metal"), e.getMessage());
        assertTrue(e.getMessage().contains("BackendRegistry.global().register"), e.getMessage());
    }

    @Test
    void register_makesTheDeviceAvailableAndUsable() throws Exception {
        assertFalse(Device.TPU.isAvailable());
        FakeBackend fake = FakeBackend.full(Device.TPU, false);
        BackendRegistry.global().register(Device.TPU, () -> fake);

        assertTrue(Device.TPU.isAvailable());
        assertTrue(Device.available().contains(Device.TPU));
        assertTrue(BackendRegistry.global().registeredDevices().contains(Device.TPU));
        Graph g = new Graph("g");
        g.setOutputs(g.relu(g.input("x", Shape.of(DType.F32, 2))));
        try (Session s = new Session(Device.TPU); CompiledGraph c = s.compile(g)) {
            assertEquals(Device.TPU, s.device());
            assertEquals("fake-tpu", s.backendName());
            assertEquals(Device.TPU, c.device());
            assertEquals(1, fake.compileCalls.get());
        }
        assertTrue(fake.closed, "closing the session closes its backend");
    }

    @Test
    void unregister_restoresUnavailability() {
        BackendRegistry.global().register(Device.WEBGPU, () -> FakeBackend.full(Device.WEBGPU, false));
        new Session(Device.WEBGPU).close();
        BackendRegistry.global().unregister(Device.WEBGPU);

        assertFalse(Device.WEBGPU.isAvailable());
        assertFalse(BackendRegistry.global().registeredDevices().contains(Device.WEBGPU));
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> new Session(Device.WEBGPU));
        assertTrue(e.getMessage().contains("dev.rlx:rlx-webgpu"), e.getMessage());
    }

    @Test
    void register_again_replacesTheFactory() {
        FakeBackend first = FakeBackend.full(Device.TPU, false);
        FakeBackend second = FakeBackend.full(Device.TPU, true);
        BackendRegistry.global().register(Device.TPU, () -> first);
        BackendRegistry.global().register(Device.TPU, () -> second);
        assertSame(second, BackendRegistry.global().create(Device.TPU));
    }

    @Test
    void create_callsTheFactoryOncePerSession() {
        AtomicInteger made = new AtomicInteger();
        BackendRegistry.global().register(Device.TPU, () -> {
            made.incrementAndGet();
            return FakeBackend.full(Device.TPU, false);
        });
        try (Session a = new Session(Device.TPU); Session b = new Session(Device.TPU)) {
            assertEquals(2, made.get());
            assertEquals(a.device(), b.device());
        }
    }

    @Test
    void registeredDevices_followDeclarationOrder() {
        BackendRegistry.global().register(Device.WEBGPU, () -> FakeBackend.full(Device.WEBGPU, false));
        BackendRegistry.global().register(Device.TPU, () -> FakeBackend.full(Device.TPU, false));
        var devices = BackendRegistry.global().registeredDevices();
        assertTrue(devices.indexOf(Device.TPU) >= 0 && devices.indexOf(Device.TPU) < devices.indexOf(Device.WEBGPU),
                devices.toString());
        // No backend jar is on this module's test class path: only the test providers (MLX, ANE, OpenGL, see
        // TestProviders) and the overrides are registered, and ANE and OpenGL fail their probes.
        assertEquals(java.util.List.of(Device.MLX, Device.ANE, Device.TPU, Device.OPENGL, Device.WEBGPU), devices);
        assertEquals(java.util.List.of(Device.MLX, Device.TPU, Device.WEBGPU), Device.available());
    }
}
