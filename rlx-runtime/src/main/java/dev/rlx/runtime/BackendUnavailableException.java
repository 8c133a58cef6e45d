package dev.rlx.runtime;

import dev.rlx.ir.RlxException;

/** No usable backend for a device: its artifact is not on the class path, or the hardware or driver is missing. */
public final class BackendUnavailableException extends RlxException {
    private final Device device;

    public BackendUnavailableException(Device device, String message) {
        super(message);
        this.device = device;
    }

    public Device device() {
        return device;
    }
}
