package dev.rlx.runtime.devices;

import dev.rlx.hw.HwSnapshot;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.Device;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A serving wrapper around {@link GraphDevices}: compiles for every viable device up front, and before each run,
 * when the host reports thermal throttling, forgets its executables and benchmark winner and compiles again (the
 * fastest device of a cool machine need not be the fastest of a hot one). Not thread-safe.
 */
public final class DeviceRouter implements AutoCloseable {
    private final GraphDevices devices;
    private final BooleanSupplier throttled;
    private boolean rebenchOnThrottle = true;
    private int rebenches;

    /** Routes {@code graph} under {@code policy}; throttling read from {@link HwSnapshot#capture()}. */
    public DeviceRouter(Graph graph, DevicePolicy policy) {
        this(GraphDevices.withPolicy(graph, policy), () -> HwSnapshot.capture().isThrottled());
    }

    /** Routes through {@code devices} (closed with the router), asking {@code throttled} before each run. */
    public DeviceRouter(GraphDevices devices, BooleanSupplier throttled) {
        this.devices = devices;
        this.throttled = throttled;
        devices.warmAll();
    }

    public static DeviceRouter fromEnv(Graph graph) {
        return new DeviceRouter(graph, DevicePolicy.fromEnv());
    }

    public boolean rebenchOnThrottle() {
        return rebenchOnThrottle;
    }

    public void setRebenchOnThrottle(boolean on) {
        rebenchOnThrottle = on;
    }

    public DeviceRouter withRebenchOnThrottle(boolean on) {
        rebenchOnThrottle = on;
        return this;
    }

    /** How many times throttling made the router start over. */
    public int rebenches() {
        return rebenches;
    }

    private void beforeRun() {
        if (rebenchOnThrottle && throttled.getAsBoolean()) {
            rebenches++;
            devices.invalidateCache();
            devices.warmAll();
        }
    }

    public List<float[]> runOn(Device device, Map<String, float[]> inputs) {
        beforeRun();
        return devices.run(device, inputs);
    }

    /** Runs on the device {@link GraphDevices#resolveWithInputs} picks for these inputs. */
    public DeviceRun<Tensor> run(Map<String, Tensor> inputs, Device hint) {
        beforeRun();
        Device d = devices.resolveWithInputs(hint, inputs).device();
        return new DeviceRun<>(d, devices.runTyped(d, inputs), List.of());
    }

    public DeviceRun<float[]> runChain(Device hint, Map<String, float[]> inputs) {
        beforeRun();
        return devices.runChain(hint, inputs);
    }

    public void setParam(String name, Tensor value) {
        devices.setParam(name, value);
    }

    public void setParam(String name, float[] value) {
        devices.setParam(name, value);
    }

    /** Labels of the viable devices. */
    public List<String> devices() {
        return DeviceSelector.labels(devices.devices());
    }

    /** The {@link GraphDevices} underneath. */
    public GraphDevices runner() {
        return devices;
    }

    @Override
    public void close() {
        devices.close();
    }
}
