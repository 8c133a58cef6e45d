package dev.rlx.runtime.devices;

import dev.rlx.ir.RlxException;

/** No device can be chosen for a graph: a bad device name, a hint that is not viable, an empty candidate list. */
public class DeviceSelectionException extends RlxException {
    public DeviceSelectionException(String message) {
        super(message);
    }

    public DeviceSelectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
