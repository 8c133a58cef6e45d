package dev.rlx.cpu;

import dev.rlx.cpu.kernels.VectorMath;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.OpRegistry;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;
import dev.rlx.runtime.spi.HostRuntime;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The CPU backend: pure Java kernels on the Vector API, split across a shared pool of worker threads, in host
 * memory. It claims every op. Thread count: {@code CompileOptions.threads()}, else {@code RLX_THREADS}, else all
 * cores. Constants are folded with these same kernels, so a folded value is bit for bit what run time computes.
 */
public final class CpuBackend implements Backend {
    /** Host memory, 64-byte aligned (a cache line, an AVX-512 vector); one for the process. */
    private static final HostRuntime RUNTIME = new HostRuntime(Device.CPU, 64);

    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public String name() {
        return "cpu (Vector API " + VectorMath.F.vectorBitSize() + "-bit, " + defaultThreads() + " threads)";
    }

    @Override
    public Capabilities capabilities() {
        return Capabilities.all();
    }

    @Override
    public DeviceRuntime runtime() {
        return RUNTIME;
    }

    @Override
    public Executable compile(CompileRequest request) {
        return CpuCompiler.compile(request, pool(request.options()), RUNTIME, true);
    }

    @Override
    public ConstantEvaluator constantEvaluator(CompileOptions options) {
        WorkerPool pool = pool(options);
        CompileOptions folding = options.withOptimize(false);
        return (Graph constants, MemoryPlan plan) -> {
            CompileRequest req = new CompileRequest(constants, plan, folding, OpRegistry.global(), Map.of());
            try (CpuExecutable exe = CpuCompiler.compile(req, pool, RUNTIME, false)) {
                exe.run();
                List<Tensor> out = new ArrayList<>();
                for (Value v : constants.outputs()) {
                    out.add(Tensor.ofBytes(v.shape(), exe.hostSlot(v).toArray(ValueLayout.JAVA_BYTE)));
                }
                return out;
            }
        };
    }

    private static WorkerPool pool(CompileOptions options) {
        return WorkerPool.shared(options.threads() > 0 ? options.threads() : defaultThreads());
    }

    /** {@code RLX_THREADS} if set to a positive number, else the available processors. */
    static int defaultThreads() {
        String env = dev.rlx.runtime.Rlx.setting("RLX_THREADS");
        if (env != null && !env.isBlank()) {
            try {
                int t = Integer.parseInt(env.trim());
                if (t > 0) {
                    return t;
                }
            } catch (NumberFormatException e) {
                // fall through to the default
            }
            System.getLogger(CpuBackend.class.getName()).log(System.Logger.Level.WARNING,
                    "ignoring RLX_THREADS=''{0}'': not a positive integer", env);
        }
        return Runtime.getRuntime().availableProcessors();
    }

    @Override
    public void close() {
        // The worker pool is shared by every executable and lives for the process.
    }
}
