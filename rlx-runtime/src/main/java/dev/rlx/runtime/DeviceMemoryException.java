package dev.rlx.runtime;

import dev.rlx.ir.RlxException;

/** A device could not provide the memory asked for; nothing was allocated. */
public final class DeviceMemoryException extends RlxException {
    private final Device device;
    private final long requested;

    public DeviceMemoryException(Device device, long requested, long held, Throwable cause) {
        super(String.format(java.util.Locale.ROOT, "%s could not allocate %,d bytes (%,d already held by RLX): %s",
                device.displayName(), requested, held, cause.getMessage()), cause);
        this.device = device;
        this.requested = requested;
    }

    public Device device() {
        return device;
    }

    /** Bytes asked for. */
    public long requested() {
        return requested;
    }
}
