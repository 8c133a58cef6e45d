package dev.rlx.runtime.devices;

/**
 * How a graph is split between a device and the CPU.
 *
 * @param deviceNodes      nodes (not counting inputs, params, constants) that run on the device
 * @param cpuNodes         nodes that run on the CPU
 * @param segments         maximal runs of nodes on one device, in execution order
 * @param bytesMovedPerRun bytes copied across the cuts in one run (device to CPU and back)
 */
public record PartitionSummary(int deviceNodes, int cpuNodes, int segments, long bytesMovedPerRun) {
    @Override
    public String toString() {
        return deviceNodes + " nodes on device, " + cpuNodes + " on cpu, " + segments + " segments, "
                + bytesMovedPerRun + " B moved per run";
    }
}
