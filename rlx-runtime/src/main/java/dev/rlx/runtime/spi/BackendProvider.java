package dev.rlx.runtime.spi;

import dev.rlx.runtime.Device;

/**
 * Entry point of a backend jar, found with {@link java.util.ServiceLoader}: list the implementation in
 * {@code META-INF/services/dev.rlx.runtime.spi.BackendProvider}. Implementations must have a public no-arg
 * constructor and be cheap to construct; heavy work belongs in {@link #create()}.
 */
public interface BackendProvider {
    Device device();

    /** Whether the backend can run here (library loads, device found). Must not throw. */
    boolean isAvailable();

    /**
     * Why {@link #isAvailable} is false here (the library that did not load, the driver's error), for the error a
     * session gets and for device listings; null when available or unknown. Must not throw.
     */
    default String unavailableReason() {
        return null;
    }

    /** A new backend instance; called once per {@code Session}. */
    Backend create();
}
