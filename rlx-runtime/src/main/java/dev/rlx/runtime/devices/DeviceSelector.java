package dev.rlx.runtime.devices;

import dev.rlx.ir.Graph;
import dev.rlx.runtime.BackendRegistry;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Rlx;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.SupportReport;
import dev.rlx.runtime.UnsupportedOpException;
import dev.rlx.runtime.spi.SyncStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Chooses devices for graphs: which devices can run a graph under a {@link DevicePolicy}, what each would cost, and
 * which one to use given a hint, the {@code RLX_DEVICE} / {@code RLX_FORCE_DEVICE} settings and the pick strategy.
 * Holds one {@link Session} per device it was asked about (created on first use, closed with the selector).
 * Thread-safe.
 *
 * <p>Resolution order: a hint (a device named in code or on a command line) wins; else {@code RLX_DEVICE}; else
 * {@code RLX_FORCE_DEVICE}; else the cost model (the cheapest estimate, ties to the policy's order). Each must be
 * viable: available, permitted, and able to run the graph (whole, or split with the CPU when
 * {@link #partitioning} is on).
 */
public final class DeviceSelector implements AutoCloseable {
    private final DevicePolicy policy;
    private final CostModels costs;
    private final Function<String, String> env;
    private final CompileOptions options;
    private final boolean partitioning;
    private final Map<Device, Session> sessions = new EnumMap<>(Device.class);
    private boolean closed;

    /** A selector with the environment's policy and settings, calibrated cost models and no partitioning. */
    public DeviceSelector() {
        this(DevicePolicy.fromEnv(), CostModels.calibrated(), Rlx::setting, CompileOptions.defaults(), false);
    }

    /**
     * @param env          answers {@code RLX_DEVICE}, {@code RLX_DEVICE_CHAIN}, {@code RLX_FORCE_DEVICE} (null: unset)
     * @param partitioning whether a device that runs only part of a graph is a candidate, the rest on the CPU
     */
    public DeviceSelector(DevicePolicy policy, CostModels costs, Function<String, String> env, CompileOptions options,
                          boolean partitioning) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.costs = Objects.requireNonNull(costs, "costs");
        this.env = Objects.requireNonNull(env, "env");
        this.options = Objects.requireNonNull(options, "options");
        this.partitioning = partitioning;
    }

    public DevicePolicy policy() {
        return policy;
    }

    public CostModels costs() {
        return costs;
    }

    public Function<String, String> env() {
        return env;
    }

    public CompileOptions options() {
        return options;
    }

    public boolean partitioning() {
        return partitioning;
    }

    /** A selector like this one with another policy (its own sessions). */
    public DeviceSelector withPolicy(DevicePolicy p) {
        return new DeviceSelector(p, costs, env, options, partitioning);
    }

    /** The session of {@code device}, created on first use. */
    public synchronized Session session(Device device) {
        if (closed) {
            throw new IllegalStateException("device selector is closed");
        }
        return sessions.computeIfAbsent(device, d -> new Session(d, options));
    }

    /** What {@code device}'s backend cannot run of {@code g}; null when the device is not available. */
    public SupportReport check(Graph g, Device device) {
        return BackendRegistry.global().isAvailable(device) ? session(device).check(g) : null;
    }

    /** Why {@code device} cannot be used for {@code g} (null when it can), given its support report. */
    private String blocker(Device device, SupportReport support) {
        if (!BackendRegistry.global().isAvailable(device)) {
            return "not available on this host or in this build";
        }
        String refused = policy.blocker(device);
        if (refused != null) {
            return refused;
        }
        if (support == null || support.supported()) {
            return null;
        }
        if (partitioning && device != Device.CPU && Partitioner.splittable(support)) {
            return null;
        }
        UnsupportedOpException.Offender o = support.unsupported().get(0);
        return "unsupported op at node " + o.path() + o.nodeId() + ": " + o.kind().name().toLowerCase(Locale.ROOT)
                + (o.reason() == null ? "" : " (" + o.reason() + ")");
    }

    /** Why {@code device} cannot run {@code g} under the policy, or null when it can. */
    public String blockerFor(Graph g, Device device) {
        try {
            return blocker(device, check(g, device));
        } catch (RuntimeException e) {
            return "backend failed: " + e.getMessage();
        }
    }

    /** The devices that can run {@code g} under the policy, preferred first. */
    public List<Device> devicesFor(Graph g) {
        List<Device> ok = new ArrayList<>();
        for (Device d : policy.probeSet()) {
            if (BackendRegistry.global().isAvailable(d) && policy.permits(d) && blocker(d, check(g, d)) == null) {
                ok.add(d);
            }
        }
        return policy.apply(ok);
    }

    /** The estimated time of one run of {@code g} on {@code device}, in ns (a split graph with its copies). */
    public double estimateNs(Graph g, Device device) {
        Session s = session(device);
        BackendCostModel m = costs.model(s);
        SupportReport support = s.check(g);
        if (support.supported() || device == Device.CPU) {
            return CostEstimator.estimateNs(g, m);
        }
        BackendCostModel cpu = costs.model(session(Device.CPU));
        return Partitioner.plan(g, support, device).estimateNs(m, cpu);
    }

    /** Every device, in declaration order, with what it can do for {@code g}; the recommended one marked. */
    public DeviceReport report(Graph g) {
        List<DeviceCandidate> rows = new ArrayList<>();
        DeviceChoice choice = null;
        String why = null;
        try {
            choice = resolve(g, null);
        } catch (DeviceSelectionException e) {
            why = e.getMessage();
        }
        for (Device d : Device.values()) {
            boolean available = BackendRegistry.global().isAvailable(d);
            boolean registered = BackendRegistry.global().registeredDevices().contains(d);
            SupportReport support = null;
            String blocker;
            List<String> caps = List.of();
            try {
                support = check(g, d);
                blocker = blocker(d, support);
                if (available) {
                    caps = capabilities(session(d));
                }
            } catch (RuntimeException e) {
                blocker = "backend failed: " + e.getMessage();
            }
            boolean supports = support != null && support.supported();
            double est = Double.NaN;
            PartitionSummary partition = null;
            if (blocker == null) {
                est = estimateNs(g, d);
                if (!supports) {
                    partition = Partitioner.plan(g, support, d).summary();
                }
            }
            DeviceCandidate c = new DeviceCandidate(d, available, registered, supports, false, blocker, est, caps, partition);
            rows.add(choice != null && choice.device() == d ? c.recommend() : c);
        }
        return new DeviceReport(g.name(), rows, choice, why, policy);
    }

    /** Advisory features of a session's backend. */
    static List<String> capabilities(Session s) {
        List<String> caps = new ArrayList<>(List.of("clone", "typed_io", "async_pipeline"));
        var buf = s.runtime().allocator().allocate(64);
        try {
            caps.add(buf.host() != null ? "unified_memory" : "device_memory");
        } finally {
            s.runtime().allocator().free(buf);
        }
        if (!(s.runtime().newStream() instanceof SyncStream)) {
            caps.add("async_stream");
        }
        return caps;
    }

    /**
     * The device for {@code g}: {@code hint} when given, else {@code RLX_DEVICE}, else {@code RLX_FORCE_DEVICE} when
     * viable, else {@link #fastest}.
     *
     * @throws DeviceSelectionException when no device is viable, or the hint or {@code RLX_DEVICE} is not
     */
    public DeviceChoice resolve(Graph g, Device hint) {
        List<Device> viable = devicesFor(g);
        if (viable.isEmpty()) {
            throw new DeviceSelectionException("no device can run graph @" + g.name() + " under " + policy + ": "
                    + blockers(g));
        }
        if (hint != null) {
            return new DeviceChoice(requireViable(g, hint, viable, "requested"), "requested");
        }
        Optional<Device> fromEnv = DevicePolicy.deviceFromEnv(env);
        if (fromEnv.isPresent()) {
            return new DeviceChoice(requireViable(g, fromEnv.get(), viable, "RLX_DEVICE"), "RLX_DEVICE="
                    + fromEnv.get().label());
        }
        return fastest(g, viable);
    }

    /** The first viable device of {@code chain}. */
    public DeviceChoice resolveChain(Graph g, List<Device> chain) {
        List<Device> viable = devicesFor(g);
        for (Device d : chain) {
            if (viable.contains(d)) {
                return new DeviceChoice(d, "first viable device of chain " + labels(chain));
            }
        }
        throw new DeviceSelectionException("no device of chain " + labels(chain) + " can run graph @" + g.name()
                + "; viable: " + labels(viable));
    }

    /** The cheapest viable device by the cost model ({@code RLX_FORCE_DEVICE} first when viable). */
    public DeviceChoice fastest(Graph g) {
        List<Device> viable = devicesFor(g);
        if (viable.isEmpty()) {
            throw new DeviceSelectionException("no device can run graph @" + g.name() + " under " + policy + ": "
                    + blockers(g));
        }
        return fastest(g, viable);
    }

    private DeviceChoice fastest(Graph g, List<Device> viable) {
        Optional<Device> forced = DevicePolicy.forcedDeviceFromEnv(env);
        if (forced.isPresent() && viable.contains(forced.get())) {
            return new DeviceChoice(forced.get(), "RLX_FORCE_DEVICE=" + forced.get().label());
        }
        if (viable.size() == 1) {
            return new DeviceChoice(viable.get(0), "the only viable device");
        }
        Device best = null;
        double bestNs = Double.POSITIVE_INFINITY;
        StringBuilder why = new StringBuilder("cost model:");
        for (Device d : viable) {
            double ns = estimateNs(g, d);
            why.append(String.format(Locale.ROOT, " %s %.1f us", d.label(), ns / 1e3));
            if (ns < bestNs) {
                bestNs = ns;
                best = d;
            }
        }
        return new DeviceChoice(best == null ? viable.get(0) : best, why.toString());
    }

    private Device requireViable(Graph g, Device d, List<Device> viable, String what) {
        if (!viable.contains(d)) {
            String b;
            try {
                b = blocker(d, check(g, d));
            } catch (RuntimeException e) {
                b = e.getMessage();
            }
            throw new DeviceSelectionException(what + " device " + d.label() + " cannot run graph @" + g.name() + ": "
                    + b + "; viable devices: " + labels(viable));
        }
        return d;
    }

    private String blockers(Graph g) {
        List<String> out = new ArrayList<>();
        for (Device d : policy.probeSet()) {
            if (BackendRegistry.global().isAvailable(d)) {
                try {
                    out.add(d.label() + ": " + blocker(d, check(g, d)));
                } catch (RuntimeException e) {
                    out.add(d.label() + ": " + e.getMessage());
                }
            }
        }
        return out.isEmpty() ? "no device in " + labels(policy.probeSet()) + " is available" : String.join("; ", out);
    }

    static List<String> labels(List<Device> ds) {
        return ds.stream().map(Device::label).toList();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            sessions.values().forEach(Session::close);
            sessions.clear();
        }
    }
}
