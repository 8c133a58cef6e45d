package dev.rlx.cuda;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.SupportReport;
import dev.rlx.testkit.BackendTestkit;
import dev.rlx.testkit.OpCase;
import org.junit.jupiter.api.Assumptions;

/**
 * The backend conformance suite on CUDA against the float64 reference. A case whose graph still needs an op the
 * backend has no kernel for is skipped with {@code Session.check}'s reason; the whole class is skipped, with the
 * probe's reason, where no CUDA device exists (CI).
 */
class CudaTestkitTest extends BackendTestkit {
    private Session session;

    @Override
    protected Session session() {
        Assumptions.assumeTrue(Device.CUDA.isAvailable(), CudaTestDevice::missing);
        session = new Session(Device.CUDA);
        return session;
    }

    @Override
    protected String skipReason(OpCase c) {
        if (session == null) {
            return CudaTestDevice.missing();
        }
        SupportReport r = session.check(c.buildGraph());
        return r.supported() ? null : "not on CUDA yet: " + r.firstUnsupported().orElseThrow();
    }
}
