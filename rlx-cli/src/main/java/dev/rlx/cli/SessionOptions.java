package dev.rlx.cli;

import dev.rlx.ir.Graph;
import dev.rlx.runtime.BackendRegistry;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Rlx;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.devices.CostModels;
import dev.rlx.runtime.devices.DeviceChoice;
import dev.rlx.runtime.devices.DevicePolicy;
import dev.rlx.runtime.devices.DeviceSelector;
import java.io.PrintWriter;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code --device} and {@code --threads} options of the commands that compile and run models. */
final class SessionOptions {
    /** More worker threads than this is a typo, not a machine. */
    static final int MAX_THREADS = 4096;
    /** The devices whose backend RLX publishes as an artifact; any other device has nothing to install yet. */
    private static final Set<Device> PUBLISHED_BACKENDS = EnumSet.of(Device.CPU, Device.VULKAN);

    /** The {@code --device} value that lets the device policy and the cost model choose. */
    static final String AUTO = "auto";

    @Option(names = "--device", defaultValue = AUTO, paramLabel = "DEVICE",
            description = "Device to run on, or auto: the device policy (RLX_DEVICE, RLX_DEVICES, RLX_DENY_DEVICES, "
                    + "RLX_PREFER_DEVICES, RLX_FORCE_DEVICE) and the cost model choose, and say why on stderr "
                    + "(default: ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--threads", paramLabel = "N",
            description = "Worker threads; 0 means all cores (default: RLX_THREADS, else all cores).")
    Integer threads;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    /** A session on the chosen device with the chosen thread count; see {@link #open(CompileOptions)}. */
    Session open() {
        return open(CompileOptions.defaults());
    }

    /**
     * A session on the chosen device compiling with {@code base} and the chosen thread count.
     *
     * @throws ParameterException (a usage error) for a thread count out of range, an unknown device, or a device
     *     this build has no backend for, naming the devices it has
     */
    Session open(CompileOptions base) {
        return openFor(() -> null, base);
    }

    /**
     * A session on the chosen device for running the graph {@code graph} gives (asked only under {@code --device auto};
     * null: not known); with auto the device is resolved for it by {@link DeviceSelector} (hint, RLX_DEVICE, policy,
     * cost model) and the choice and its reason go to stderr.
     */
    Session openFor(Supplier<Graph> graph, CompileOptions base) {
        if (threads != null) {
            OptionChecks.between(spec, "--threads", threads, 0, MAX_THREADS);
        }
        CompileOptions options = threads == null ? base : base.withThreads(threadCount());
        Device d = AUTO.equalsIgnoreCase(device.trim()) ? auto(graph, options) : device();
        return new Session(d, options);
    }

    private Device auto(Supplier<Graph> graphOf, CompileOptions options) {
        PrintWriter err = spec.commandLine().getErr();
        DevicePolicy policy = DevicePolicy.fromEnv();
        policy.ignored().forEach(n -> err.println(spec.qualifiedName() + ": note: " + n));
        DeviceChoice c;
        Graph graph;
        try {
            graph = graphOf.get();
        } catch (RuntimeException e) {
            graph = null;
            err.println(spec.qualifiedName() + ": note: could not build the graph to choose a device with: " + e.getMessage());
        }
        if (graph == null) {
            c = new DeviceChoice(Device.CPU, "no graph to weigh the devices with");
        } else {
            try (DeviceSelector s = new DeviceSelector(policy, CostModels.calibrated(), Rlx::setting, options, false)) {
                c = s.resolve(graph, null);
            }
        }
        err.println(spec.qualifiedName() + ": --device auto: " + c.device().label() + " (" + c.reason() + ")");
        err.flush();
        return c.device();
    }

    /** The worker threads {@code --threads} asks for (0: all cores), or 0 for the backend's default. */
    int threadCount() {
        return threads == null ? 0 : threads == 0 ? Runtime.getRuntime().availableProcessors() : threads;
    }

    /**
     * The session's backend as its name says, with the thread count this command chose: the backend's name
     * states its default count, which {@code --threads} overrides.
     */
    String describe(Session s) {
        String name = s.backendName();
        if (threads == null) {
            return name;
        }
        int n = threadCount();
        String count = n + (n == 1 ? " thread" : " threads");
        String replaced = name.replaceFirst("\\b\\d+ threads?\\b", count);
        return replaced.equals(name) && !name.contains(count) ? name + ", " + count : replaced;
    }

    private Device device() {
        Device d;
        try {
            d = Device.parse(device);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--device " + device + ": unknown device; this build runs on "
                    + String.join(", ", runnable()));
        }
        if (BackendRegistry.global().registeredDevices().contains(d)) {
            return d;
        }
        if (PUBLISHED_BACKENDS.contains(d)) {
            throw new ParameterException(spec.commandLine(), "--device " + device + ": the " + d.displayName()
                    + " backend is not on the class path; add dev.rlx:" + d.artifact());
        }
        throw new ParameterException(spec.commandLine(), "--device " + device + ": RLX has no " + d.displayName()
                + " backend yet; this build runs on " + String.join(", ", runnable()));
    }

    /** Labels of the devices with a backend in this process, e.g. {@code [cpu]}. */
    private static List<String> runnable() {
        return BackendRegistry.global().registeredDevices().stream().map(Device::label).toList();
    }
}
