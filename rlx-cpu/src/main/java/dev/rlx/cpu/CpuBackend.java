package dev.rlx.cpu;

import dev.rlx.cpu.kernels.VectorMath;
import dev.rlx.ir.OpKind;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.Executable;
import java.util.EnumSet;
import java.util.Set;

/**
 * The CPU backend: pure Java kernels on the Vector API, split across a shared pool of worker threads.
 * Thread count: {@code CompileOptions.threads()}, else {@code RLX_THREADS}, else all cores.
 */
public final class CpuBackend implements Backend {
    private static final Set<OpKind> SUPPORTED = EnumSet.allOf(OpKind.class);

    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public String name() {
        return "cpu (Vector API " + VectorMath.F.vectorBitSize() + "-bit, " + defaultThreads() + " threads)";
    }

    @Override
    public Set<OpKind> supportedOps() {
        return SUPPORTED;
    }

    @Override
    public Executable compile(CompileRequest request) {
        int threads = request.options().threads() > 0 ? request.options().threads() : defaultThreads();
        return CpuCompiler.compile(request, WorkerPool.shared(threads));
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
