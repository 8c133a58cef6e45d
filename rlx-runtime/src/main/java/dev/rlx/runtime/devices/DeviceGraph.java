package dev.rlx.runtime.devices;

import dev.rlx.ir.Tensor;
import dev.rlx.runtime.Device;
import java.util.List;
import java.util.Map;

/**
 * A graph compiled for a device, whole ({@link WholeGraph}, one {@link dev.rlx.runtime.CompiledGraph}) or split
 * with the CPU ({@link PartitionedGraph}): the same calls either way. Not thread-safe; close it when done.
 */
public interface DeviceGraph extends AutoCloseable {
    /** The device it was compiled for (a split graph also runs parts on the CPU). */
    Device device();

    /** The partition, or null when the graph runs whole on {@link #device()}. */
    PartitionSummary partition();

    List<String> inputNames();

    List<String> paramNames();

    /** Sets param {@code name} (written through to the device's weight set). */
    void setParam(String name, Tensor value);

    /** Sets the given inputs (others keep their values), runs, returns every output as floats. */
    List<float[]> run(Map<String, float[]> inputs);

    /** Sets the given inputs from tensors, runs, returns every output as a tensor of its dtype. */
    List<Tensor> runTyped(Map<String, Tensor> inputs);

    @Override
    void close();
}
