package dev.rlx.runtime.devices;

import dev.rlx.ir.OpKind;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.runtime.BackendRegistry;
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fake second device of these tests: registered for another {@link Device}, it runs with the CPU backend's
 * kernels but claims only {@code kinds} (so graphs with other nodes are split or refused), or fails every compile.
 */
final class PartialBackend implements Backend {
    static final AtomicInteger COMPILES = new AtomicInteger();
    private final Device device;
    private final Backend cpu;
    private final Capabilities claims;
    private final String failure;

    private PartialBackend(Device device, Set<OpKind> kinds, String failure) {
        this.device = device;
        this.cpu = BackendRegistry.global().create(Device.CPU);
        this.claims = kinds == null ? cpu.capabilities() : cpu.capabilities().and(Capabilities.ofKinds(kinds));
        this.failure = failure;
    }

    /** Registers a backend for {@code device} claiming only {@code kinds} of what the CPU claims (null: all of it). */
    static AutoCloseable install(Device device, Set<OpKind> kinds) {
        BackendRegistry.global().register(device, () -> new PartialBackend(device, kinds, null));
        return () -> BackendRegistry.global().unregister(device);
    }

    /** Registers a backend for {@code device} whose every compile throws. */
    static AutoCloseable installBroken(Device device, String failure) {
        BackendRegistry.global().register(device, () -> new PartialBackend(device, null, failure));
        return () -> BackendRegistry.global().unregister(device);
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public String name() {
        return "partial " + device.label() + " (" + cpu.name() + ")";
    }

    @Override
    public Capabilities capabilities() {
        return claims;
    }

    @Override
    public DeviceRuntime runtime() {
        return cpu.runtime();
    }

    @Override
    public Executable compile(CompileRequest request) {
        if (failure != null) {
            throw new CompileException(failure);
        }
        COMPILES.incrementAndGet();
        return cpu.compile(request);
    }

    @Override
    public ConstantEvaluator constantEvaluator(CompileOptions options) {
        return cpu.constantEvaluator(options);
    }

    @Override
    public void close() {
        cpu.close();
    }
}
