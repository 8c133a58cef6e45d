package dev.rlx.cuda;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.BackendProvider;

/**
 * Registers the CUDA backend with {@code ServiceLoader}; available where the driver loads, initialises and lists
 * a device, and NVRTC loads. Why not is {@link CudaProbe#reason()} ({@code CudaBackend.probe().describe()}).
 */
public final class CudaBackendProvider implements BackendProvider {
    @Override
    public Device device() {
        return Device.CUDA;
    }

    @Override
    public boolean isAvailable() {
        try {
            return CudaProbe.system().available();
        } catch (Throwable e) { // a probe must not throw
            return false;
        }
    }

    @Override
    public Backend create() {
        return CudaBackend.open();
    }
}
