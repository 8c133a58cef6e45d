package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.Rlx;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which devices a graph may run on and how one is picked: an allow list (empty optional: every device), a deny
 * list, a preference order, and the {@link PickStrategy}. Immutable; the {@code with...} methods return copies.
 *
 * <p>{@link #fromEnv()} reads {@code RLX_DEVICES} (allow), {@code RLX_DENY_DEVICES}, {@code RLX_PREFER_DEVICES}
 * (lists: {@code cuda,vk cpu}) and {@code RLX_BENCHMARK_PICK=N}. A value that does not parse is left out and
 * noted in {@link #ignored()}, so a typo in the environment never stops a program; the CLI prints those notes.
 */
public final class DevicePolicy {
    /**
     * The order devices are tried in when the policy prefers none: dedicated accelerators first, the portable
     * GPU APIs next, the CPU last.
     */
    public static final List<Device> PLATFORM_PRIORITY = List.of(Device.CUDA, Device.ROCM, Device.METAL, Device.MLX,
            Device.ANE, Device.TPU, Device.VULKAN, Device.GPU, Device.DIRECTX, Device.OPENGL, Device.WEBGPU, Device.CPU);

    private final Optional<List<Device>> allow;
    private final List<Device> deny;
    private final List<Device> prefer;
    private final PickStrategy pick;
    private final List<String> ignored;

    private DevicePolicy(Optional<List<Device>> allow, List<Device> deny, List<Device> prefer, PickStrategy pick,
                         List<String> ignored) {
        this.allow = allow.map(List::copyOf);
        this.deny = List.copyOf(deny);
        this.prefer = List.copyOf(prefer);
        this.pick = Objects.requireNonNull(pick, "pick");
        this.ignored = List.copyOf(ignored);
    }

    /** Every device allowed, none denied or preferred, picked by the cost model. */
    public static DevicePolicy all() {
        return new DevicePolicy(Optional.empty(), List.of(), List.of(), new PickStrategy.CostModel(), List.of());
    }

    /** Only {@code devices} allowed. */
    public static DevicePolicy only(List<Device> devices) {
        return all().withAllow(devices);
    }

    public static DevicePolicy only(Device... devices) {
        return only(List.of(devices));
    }

    /** The policy of the {@code RLX_*} settings ({@link Rlx#setting}: a system property wins over the variable). */
    public static DevicePolicy fromEnv() {
        return fromEnv(Rlx::setting);
    }

    /** The policy of the settings {@code env} answers (null: unset), under the prefix {@code RLX}. */
    public static DevicePolicy fromEnv(Function<String, String> env) {
        return fromEnv(env, "RLX");
    }

    /** The policy of {@code <prefix>_DEVICES}, {@code _DENY_DEVICES}, {@code _PREFER_DEVICES}, {@code _BENCHMARK_PICK}. */
    public static DevicePolicy fromEnv(Function<String, String> env, String prefix) {
        List<String> notes = new ArrayList<>();
        Optional<List<Device>> allow = list(env, prefix + "_DEVICES", notes);
        List<Device> deny = list(env, prefix + "_DENY_DEVICES", notes).orElse(List.of());
        List<Device> prefer = list(env, prefix + "_PREFER_DEVICES", notes).orElse(List.of());
        PickStrategy pick = new PickStrategy.CostModel();
        String key = prefix + "_BENCHMARK_PICK";
        String runs = env.apply(key);
        if (runs != null && !runs.isBlank()) {
            try {
                int n = Integer.parseInt(runs.trim());
                if (n > 0) {
                    pick = new PickStrategy.Benchmark(n);
                } else {
                    notes.add(key + "=" + runs + " ignored: not a positive number of runs");
                }
            } catch (NumberFormatException e) {
                notes.add(key + "=" + runs + " ignored: not a number");
            }
        }
        return new DevicePolicy(allow, deny, prefer, pick, notes);
    }

    private static Optional<List<Device>> list(Function<String, String> env, String key, List<String> notes) {
        String v = env.apply(key);
        if (v == null || v.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(DeviceNames.parseList(v));
        } catch (DeviceSelectionException e) {
            notes.add(key + "=" + v + " ignored: " + e.getMessage());
            return Optional.empty();
        }
    }

    /** The device {@code RLX_DEVICE} names, if it names one; an unknown name is an error naming the choices. */
    public static Optional<Device> deviceFromEnv(Function<String, String> env) {
        String v = env.apply("RLX_DEVICE");
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(DeviceNames.parse(v));
    }

    /** The chain {@code RLX_DEVICE_CHAIN} lists (e.g. {@code cuda,vulkan,cpu}), if set. */
    public static Optional<List<Device>> deviceChainFromEnv(Function<String, String> env) {
        String v = env.apply("RLX_DEVICE_CHAIN");
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(DeviceNames.parseList(v));
    }

    /** The device {@code RLX_FORCE_DEVICE} names: picked over the cost model whenever it is viable. */
    public static Optional<Device> forcedDeviceFromEnv(Function<String, String> env) {
        String v = env.apply("RLX_FORCE_DEVICE");
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(DeviceNames.parse(v));
    }

    public DevicePolicy withAllow(List<Device> devices) {
        return new DevicePolicy(Optional.of(devices), deny, prefer, pick, ignored);
    }

    public DevicePolicy withDeny(List<Device> devices) {
        return new DevicePolicy(allow, devices, prefer, pick, ignored);
    }

    public DevicePolicy withDeny(Device... devices) {
        return withDeny(List.of(devices));
    }

    public DevicePolicy withPrefer(List<Device> devices) {
        return new DevicePolicy(allow, deny, devices, pick, ignored);
    }

    public DevicePolicy withPrefer(Device... devices) {
        return withPrefer(List.of(devices));
    }

    /** Pick by running every viable device {@code runs} times (at least 1). */
    public DevicePolicy withBenchmarkPick(int runs) {
        return new DevicePolicy(allow, deny, prefer, new PickStrategy.Benchmark(runs), ignored);
    }

    public DevicePolicy withCostModelPick() {
        return new DevicePolicy(allow, deny, prefer, new PickStrategy.CostModel(), ignored);
    }

    public Optional<List<Device>> allow() {
        return allow;
    }

    public List<Device> deny() {
        return deny;
    }

    public List<Device> prefer() {
        return prefer;
    }

    public PickStrategy pick() {
        return pick;
    }

    /** Settings {@link #fromEnv} could not parse, one line each ("RLX_DEVICES=cdua ignored: unknown device..."). */
    public List<String> ignored() {
        return ignored;
    }

    /** Whether the policy lets {@code d} be used. */
    public boolean permits(Device d) {
        return blocker(d) == null;
    }

    /** Why the policy refuses {@code d}, or null when it permits it. */
    public String blocker(Device d) {
        if (deny.contains(d)) {
            return "denied by DevicePolicy";
        }
        if (allow.isPresent() && !allow.get().contains(d)) {
            return "not in DevicePolicy allow-list " + allow.get().stream().map(Device::label).toList();
        }
        return null;
    }

    /** The permitted devices among {@code candidates}, preferred first, then in {@link #PLATFORM_PRIORITY} order. */
    public List<Device> apply(List<Device> candidates) {
        return candidates.stream().filter(this::permits).distinct()
                .sorted(Comparator.comparingInt((Device d) -> rank(prefer, d)).thenComparingInt(d -> rank(PLATFORM_PRIORITY, d)))
                .toList();
    }

    private static int rank(List<Device> order, Device d) {
        int i = order.indexOf(d);
        return i < 0 ? 255 : i;
    }

    /** The devices worth probing: the allow list, or every device. */
    public List<Device> probeSet() {
        return allow.orElse(Arrays.asList(Device.values()));
    }

    @Override
    public String toString() {
        return "DevicePolicy[allow=" + allow.map(l -> l.stream().map(Device::label).toList().toString()).orElse("all")
                + ", deny=" + deny.stream().map(Device::label).toList()
                + ", prefer=" + prefer.stream().map(Device::label).toList() + ", pick=" + pick + "]";
    }
}
