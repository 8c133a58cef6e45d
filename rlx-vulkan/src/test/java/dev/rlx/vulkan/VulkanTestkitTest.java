package dev.rlx.vulkan;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.SupportReport;
import dev.rlx.testkit.BackendTestkit;
import dev.rlx.testkit.OpCase;
import org.junit.jupiter.api.Assumptions;

/**
 * The backend conformance suite on Vulkan (lavapipe in CI), against the float64 reference. A case whose graph
 * still needs an op the backend has no shader for is skipped with {@code Session.check}'s reason; the whole class
 * is skipped, with a message, where no Vulkan device exists.
 */
class VulkanTestkitTest extends BackendTestkit {
    private Session session;

    @Override
    protected Session session() {
        Assumptions.assumeTrue(Device.VULKAN.isAvailable(), VulkanTestDevice.MISSING);
        session = new Session(Device.VULKAN);
        return session;
    }

    @Override
    protected String skipReason(OpCase c) {
        if (session == null) {
            return VulkanTestDevice.MISSING;
        }
        SupportReport r = session.check(c.buildGraph());
        return r.supported() ? null : "not on Vulkan yet: " + r.firstUnsupported().orElseThrow();
    }
}
