package dev.rlx.runtime.spi;

import dev.rlx.runtime.Device;

/** What a backend exposes of its device: where memory comes from and how work is queued. Thread-safe. */
public interface DeviceRuntime {
    Device device();

    DeviceAllocator allocator();

    /** A new command stream on the device (for the CPU, {@link SyncStream#INSTANCE}). */
    CommandStream newStream();
}
