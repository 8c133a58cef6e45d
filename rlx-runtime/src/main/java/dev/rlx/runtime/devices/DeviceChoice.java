package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;

/**
 * The device picked for a graph and why, in words a user can act on ("hint", "RLX_DEVICE=vulkan",
 * "cost model: cpu 12.0 us, vulkan 310.5 us").
 */
public record DeviceChoice(Device device, String reason) {
    @Override
    public String toString() {
        return device.label() + " (" + reason + ")";
    }
}
