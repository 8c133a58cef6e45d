package dev.rlx.cli;

import dev.rlx.runtime.BackendRegistry;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
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

    @Option(names = "--device", defaultValue = "cpu", paramLabel = "DEVICE",
            description = "Device to run on (default: ${DEFAULT-VALUE}).")
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
        if (threads != null) {
            OptionChecks.between(spec, "--threads", threads, 0, MAX_THREADS);
        }
        Device d = device();
        return new Session(d, threads == null ? base : base.withThreads(threadCount()));
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
