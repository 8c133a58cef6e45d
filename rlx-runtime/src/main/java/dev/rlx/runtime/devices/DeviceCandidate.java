package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;
import java.util.List;

/**
 * One line of a {@link DeviceReport}: what one device can do for one graph.
 *
 * @param device          the device
 * @param available       a backend for it is usable on this host
 * @param registered      a backend for it is on the class path or registered at run time
 * @param supportsGraph   its backend runs every node of the graph
 * @param recommended     the device the graph would run on with no hint
 * @param blocker         why it cannot be used for the graph (null when it can): "not available on this host or in
 *                        this build", "unsupported op at node 12: FFT", "denied by DevicePolicy"...
 * @param estimatedNs     the cost model's estimate of one run, in ns; NaN when not estimated
 * @param capabilities    advisory features ({@code clone}, {@code typed_io}, {@code unified_memory}...)
 * @param partition       how the graph would be split to run there with the rest on the CPU, or null when it is
 *                        not split (it runs whole, or cannot run at all)
 */
public record DeviceCandidate(Device device, boolean available, boolean registered, boolean supportsGraph,
        boolean recommended, String blocker, double estimatedNs, List<String> capabilities, PartitionSummary partition) {
    public DeviceCandidate {
        capabilities = List.copyOf(capabilities);
    }

    public String label() {
        return device.label();
    }

    /** Whether the graph can run on this device (whole, or split with the CPU) under the policy. */
    public boolean viable() {
        return blocker == null;
    }

    DeviceCandidate recommend() {
        return new DeviceCandidate(device, available, registered, supportsGraph, true, blocker, estimatedNs, capabilities,
                partition);
    }
}
