package dev.rlx.runtime.devices;

import dev.rlx.ir.Graph;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Rlx;
import dev.rlx.opt.PrecisionPolicy;
import java.util.Objects;

/**
 * A session without a fixed device: each compile names its device or lets the {@link DevicePolicy} and cost model
 * choose ({@link DeviceSelector#resolve}). Holds one {@code Session} per device used; close it when done (compiled
 * graphs stay usable). Thread-safe.
 */
public final class FlexibleSession implements AutoCloseable {
    private final DeviceSelector selector;

    public FlexibleSession() {
        this(DevicePolicy.all(), CompileOptions.defaults());
    }

    private FlexibleSession(DevicePolicy policy, CompileOptions options) {
        this.selector = new DeviceSelector(policy, CostModels.calibrated(), Rlx::setting, options, false);
    }

    /** The policy of the environment ({@link DevicePolicy#fromEnv()}). */
    public static FlexibleSession fromEnv() {
        return new FlexibleSession(DevicePolicy.fromEnv(), CompileOptions.defaults());
    }

    public static FlexibleSession withDevicePolicy(DevicePolicy policy) {
        return new FlexibleSession(policy, CompileOptions.defaults());
    }

    /** A session like this one whose compiles use {@code options} (a new set of device sessions). */
    public FlexibleSession withOptions(CompileOptions options) {
        return new FlexibleSession(selector.policy(), Objects.requireNonNull(options, "options"));
    }

    /** A session like this one compiling at {@code precision}. */
    public FlexibleSession withPrecision(PrecisionPolicy precision) {
        return withOptions(selector.options().withPrecision(precision));
    }

    public DevicePolicy policy() {
        return selector.policy();
    }

    public DeviceSelector selector() {
        return selector;
    }

    /**
     * Compiles {@code g} for {@code device} with the session's options.
     *
     * @throws DeviceSelectionException when the policy does not permit the device
     */
    public CompiledGraph compileOn(Graph g, Device device) {
        return compileWithOn(g, device, selector.options());
    }

    public CompiledGraph compileWithOn(Graph g, Device device, CompileOptions options) {
        String refused = selector.policy().blocker(device);
        if (refused != null) {
            throw new DeviceSelectionException("device " + device.label() + " is " + refused + " (" + selector.policy() + ")");
        }
        return selector.session(device).compile(g, options);
    }

    /** Resolves the device for {@code g} ({@code hint} may be null), then compiles for it. */
    public CompiledGraph compileResolved(Graph g, Device hint) {
        return compileOn(g, selector.resolve(g, hint).device());
    }

    public CompiledGraph compileResolvedWith(Graph g, Device hint, CompileOptions options) {
        return compileWithOn(g, selector.resolve(g, hint).device(), options);
    }

    @Override
    public void close() {
        selector.close();
    }
}
