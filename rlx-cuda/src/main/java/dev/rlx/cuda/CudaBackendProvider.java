package dev.rlx.cuda;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.BackendProvider;

/**
 * Registers the CUDA backend with {@code ServiceLoader}; available where the driver loads, initialises and lists
 * a device, and NVRTC loads. Why not is {@link CudaProbe#reason()}: in the session's error, and with the devices
 * and libraries in {@code CudaBackend.probe().describe()}.
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
    public String unavailableReason() {
        try {
            CudaProbe p = CudaProbe.system();
            return p.available() ? null : p.reason();
        } catch (Throwable e) { // must not throw
            return null;
        }
    }

    @Override
    public Backend create() {
        return CudaBackend.open();
    }
}
