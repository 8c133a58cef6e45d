package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;
import java.util.List;

/**
 * The outputs of a run and the device that produced them, with the devices tried before it.
 *
 * @param failed the attempts that failed before {@code device} succeeded (empty when the first one did)
 */
public record DeviceRun<T>(Device device, List<T> outputs, List<DeviceFallbackException.Attempt> failed) {
    public DeviceRun {
        outputs = List.copyOf(outputs);
        failed = List.copyOf(failed);
    }
}
