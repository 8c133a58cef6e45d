package dev.rlx.runtime;

import dev.rlx.runtime.spi.Backend;

/** Test doubles of this package for tests in other packages. */
public final class TestBackends {
    private TestBackends() {}

    /** A {@link FakeBackend} claiming every op kind, with host memory. */
    public static Backend fullFake(Device device) {
        return FakeBackend.full(device, false);
    }
}
