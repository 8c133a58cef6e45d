package dev.rlx.cpu;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.BackendProvider;

/** Registers the CPU backend with {@code ServiceLoader}. */
public final class CpuBackendProvider implements BackendProvider {
    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Backend create() {
        return new CpuBackend();
    }
}
