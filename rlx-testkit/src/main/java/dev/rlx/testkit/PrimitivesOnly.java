package dev.rlx.testkit;

import dev.rlx.opt.Capabilities;
import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;

/**
 * A test backend that claims only what {@code delegate} claims of the {@link dev.rlx.opt.Primitives} and runs it
 * with {@code delegate}'s kernels: what a new backend with no fused kernels sees. Every composite and fusion
 * product reaches it decomposed, so running a real model on it checks the decompositions end to end, at the
 * delegate's speed.
 */
public final class PrimitivesOnly implements Backend {
    private final Backend delegate;
    private final Capabilities claims;

    public PrimitivesOnly(Backend delegate) {
        this.delegate = delegate;
        this.claims = delegate.capabilities().and(Capabilities.primitives());
    }

    @Override
    public Device device() {
        return delegate.device();
    }

    @Override
    public String name() {
        return "primitives only (" + delegate.name() + ")";
    }

    @Override
    public Capabilities capabilities() {
        return claims;
    }

    @Override
    public DeviceRuntime runtime() {
        return delegate.runtime();
    }

    @Override
    public Executable compile(CompileRequest request) {
        return delegate.compile(request);
    }

    @Override
    public ConstantEvaluator constantEvaluator(CompileOptions options) {
        return delegate.constantEvaluator(options);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
