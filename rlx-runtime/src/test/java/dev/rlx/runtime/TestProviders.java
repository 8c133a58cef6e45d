package dev.rlx.runtime;

import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.BackendProvider;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Backend providers listed in this module's test {@code META-INF/services}, so the registry's
 * {@code ServiceLoader} discovery and probing are exercised: one usable (MLX), one whose probe finds nothing
 * (ANE), one whose probe throws (OpenGL).
 */
public final class TestProviders {
    static final AtomicInteger ANE_PROBES = new AtomicInteger();
    static final AtomicInteger OPENGL_PROBES = new AtomicInteger();

    private TestProviders() {}

    public static final class Mlx implements BackendProvider {
        @Override
        public Device device() {
            return Device.MLX;
        }

        @Override
        public boolean isAvailable() {
            return true;
        }

        @Override
        public Backend create() {
            return FakeBackend.full(Device.MLX, false);
        }
    }

    public static final class AneWithoutHardware implements BackendProvider {
        @Override
        public Device device() {
            return Device.ANE;
        }

        @Override
        public boolean isAvailable() {
            ANE_PROBES.incrementAndGet();
            return false;
        }

        @Override
        public String unavailableReason() {
            return "no Neural Engine on this test machine";
        }

        @Override
        public Backend create() {
            throw new AssertionError("create() of a backend whose probe failed");
        }
    }

    public static final class OpenGlBrokenProbe implements BackendProvider {
        @Override
        public Device device() {
            return Device.OPENGL;
        }

        @Override
        public boolean isAvailable() {
            OPENGL_PROBES.incrementAndGet();
            throw new UnsatisfiedLinkError("no libGL in this test");
        }

        @Override
        public Backend create() {
            throw new AssertionError("create() of a backend whose probe failed");
        }
    }
}
