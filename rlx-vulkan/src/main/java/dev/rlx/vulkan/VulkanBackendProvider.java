package dev.rlx.vulkan;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.BackendProvider;

/** Registers the Vulkan backend with {@code ServiceLoader}; available where the loader finds a usable device. */
public final class VulkanBackendProvider implements BackendProvider {
    private static volatile Boolean available;

    @Override
    public Device device() {
        return Device.VULKAN;
    }

    @Override
    public boolean isAvailable() {
        Boolean a = available;
        if (a == null) {
            try {
                a = VulkanBackend.devices().stream().anyMatch(VulkanDeviceInfo::usable);
            } catch (Throwable e) { // a probe must not throw: no loader, a broken driver
                a = false;
            }
            available = a;
        }
        return a;
    }

    @Override
    public Backend create() {
        return VulkanBackend.open();
    }
}
