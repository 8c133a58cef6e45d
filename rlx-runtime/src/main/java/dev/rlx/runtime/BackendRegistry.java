package dev.rlx.runtime;

import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.BackendProvider;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Supplier;

/**
 * Which backend serves each device. Backends on the class path are discovered once with
 * {@link ServiceLoader}; {@link #register} adds or overrides one at run time (a custom backend, or a test
 * double). Thread-safe.
 */
public final class BackendRegistry {
    private static final BackendRegistry GLOBAL = new BackendRegistry(true);

    private final Map<Device, BackendProvider> discovered = new EnumMap<>(Device.class);
    private final Map<Device, Supplier<Backend>> overrides = new EnumMap<>(Device.class);
    private final Map<Device, Boolean> probed = new EnumMap<>(Device.class);
    private Backend foldingCpu; // created on first use; dropped when the CPU registration changes

    private BackendRegistry(boolean discover) {
        if (discover) {
            for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
                discovered.putIfAbsent(p.device(), p);
            }
        }
    }

    /** The process-wide registry. */
    public static BackendRegistry global() {
        return GLOBAL;
    }

    /** Serves {@code device} with {@code factory} from now on, replacing any discovered backend. */
    public synchronized void register(Device device, Supplier<Backend> factory) {
        overrides.put(device, factory);
        if (device == Device.CPU) {
            foldingCpu = null;
        }
    }

    /** Removes a {@link #register}ed override; discovered backends stay. */
    public synchronized void unregister(Device device) {
        overrides.remove(device);
        if (device == Device.CPU) {
            foldingCpu = null;
        }
    }

    /**
     * The CPU backend's constant evaluator for graphs compiled with {@code options} (what folds constants for a
     * backend that has no evaluator of its own), or null when no CPU backend is usable.
     */
    public ConstantEvaluator cpuConstantEvaluator(CompileOptions options) {
        Backend cpu;
        synchronized (this) {
            if (foldingCpu == null && isAvailable(Device.CPU)) {
                foldingCpu = create(Device.CPU);
            }
            cpu = foldingCpu;
        }
        return cpu == null ? null : cpu.constantEvaluator(options);
    }

    /** Registered devices, in declaration order. */
    public synchronized List<Device> registeredDevices() {
        List<Device> out = new ArrayList<>();
        for (Device d : Device.values()) {
            if (overrides.containsKey(d) || discovered.containsKey(d)) {
                out.add(d);
            }
        }
        return out;
    }

    /** Whether a backend is registered for {@code device} and (for discovered ones) its probe succeeds. */
    public synchronized boolean isAvailable(Device device) {
        if (overrides.containsKey(device)) {
            return true;
        }
        BackendProvider p = discovered.get(device);
        if (p == null) {
            return false;
        }
        return probed.computeIfAbsent(device, d -> {
            try {
                return p.isAvailable();
            } catch (RuntimeException | LinkageError e) {
                return false;
            }
        });
    }

    /**
     * Why the discovered backend for {@code device} is unavailable, as its provider says; null when it is
     * available, not discovered, or gives no reason.
     */
    public String unavailableReason(Device device) {
        BackendProvider p;
        synchronized (this) {
            p = discovered.get(device);
        }
        if (p == null || isAvailable(device)) {
            return null;
        }
        try {
            return p.unavailableReason();
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * A new backend for {@code device}.
     *
     * @throws BackendUnavailableException naming the device and the artifact to add when none is usable
     */
    public Backend create(Device device) {
        Supplier<Backend> factory;
        BackendProvider provider;
        synchronized (this) {
            factory = overrides.get(device);
            provider = discovered.get(device);
        }
        if (factory != null) {
            return factory.get();
        }
        if (provider == null) {
            throw new BackendUnavailableException(device, "no backend for " + device.displayName()
                    + " is on the class path: add the dependency dev.rlx:" + device.artifact()
                    + " (or register one with BackendRegistry.global().register). Available: " + Device.available());
        }
        if (!isAvailable(device)) {
            String why = unavailableReason(device);
            throw new BackendUnavailableException(device, "the " + device.displayName() + " backend ("
                    + device.artifact() + ") is on the class path but found no usable device or driver here"
                    + (why == null ? "" : ": " + why));
        }
        return provider.create();
    }
}
