package dev.rlx.cuda;

import dev.rlx.ir.DType;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.opt.Capabilities;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Rlx;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The CUDA backend: graphs run as CUDA C kernels compiled at run time by NVRTC for the device's compute
 * capability, float products through cuBLAS, each run replayed as one CUDA graph. It claims the primitive ops it
 * has kernels for, in every dtype but c64; the pipeline decomposes composites (softmax, norms, attention) into
 * them. {@code RLX_CUDA_GRAPHS=0} runs the launches one by one instead (to measure what graphs save).
 */
public final class CudaBackend implements Backend {
    /** The dtypes the kernels hold. */
    static final Set<DType> DTYPES = EnumSet.of(DType.F32, DType.F64, DType.F16, DType.BF16, DType.I8, DType.I16,
            DType.I32, DType.I64, DType.U8, DType.U32, DType.BOOL);
    private static final Capabilities CAPABILITIES = buildCapabilities();

    private final CudaContext ctx;
    private final CudaMemory memory;
    private final Kernels kernels;
    private final CublasHandle cublas;
    private final boolean graphs;
    /** The backend and each live executable: the kernels, cuBLAS and staging memory go when the last one closes. */
    private final java.util.concurrent.atomic.AtomicInteger users = new java.util.concurrent.atomic.AtomicInteger(1);
    private boolean closed;

    private CudaBackend(CudaContext ctx) {
        this.ctx = ctx;
        this.memory = new CudaMemory(ctx);
        this.kernels = new Kernels(ctx);
        this.cublas = CublasHandle.open(ctx, memory);
        this.graphs = !"0".equals(Rlx.setting("RLX_CUDA_GRAPHS"));
    }

    /**
     * Opens the device {@code RLX_CUDA_DEVICE} names (default 0).
     *
     * @throws CudaException naming the reason when CUDA cannot be used here
     */
    public static CudaBackend open() {
        return new CudaBackend(CudaContext.open());
    }

    /** What CUDA looks like here (availability or the reason, devices with their telemetry, libraries). */
    public static CudaProbe probe() {
        return CudaProbe.system();
    }

    /** What the kernels run: the same op kinds as the Vulkan backend's shaders, f64 transcendentals included. */
    static Capabilities buildCapabilities() {
        DType[] ts = DTYPES.toArray(DType[]::new);
        DType first = ts[0];
        DType[] rest = Arrays.copyOfRange(ts, 1, ts.length);
        Capabilities.Builder b = Capabilities.builder().claimCompositeUnary();
        for (OpKind k : List.of(OpKind.INPUT, OpKind.PARAM, OpKind.CONSTANT, OpKind.UNARY, OpKind.BINARY,
                OpKind.COMPARE, OpKind.WHERE, OpKind.CAST, OpKind.MATMUL, OpKind.REDUCE, OpKind.RESHAPE,
                OpKind.TRANSPOSE, OpKind.SLICE, OpKind.CONCAT, OpKind.EXPAND, OpKind.GATHER, OpKind.ARG_REDUCE,
                OpKind.CUMSUM, OpKind.CONV, OpKind.CONV_TRANSPOSE, OpKind.POOL, OpKind.SCATTER_ADD, OpKind.TOP_K)) {
            b.claim(k, first, rest);
        }
        for (OpKind k : List.of(OpKind.UNARY, OpKind.BINARY, OpKind.COMPARE, OpKind.WHERE, OpKind.CAST,
                OpKind.TRANSPOSE, OpKind.SLICE, OpKind.EXPAND, OpKind.CONCAT, OpKind.REDUCE, OpKind.GATHER,
                OpKind.SCATTER_ADD)) {
            b.refuse(k, "rank<=8", CudaBackend::rankRule);
        }
        b.refuse(OpKind.CAST, "cast-types", (op, in) -> {
            DType to = ((Op.Cast) op).to();
            return DTYPES.contains(to) ? null : "no " + to.label() + " kernels";
        });
        b.claim(OpKind.FUSED, DType.F32, DType.F64, DType.F16, DType.BF16);
        b.refuse(OpKind.FUSED, "fused-operands", (op, in) -> in.size() > CudaLowering.MAX_FUSED_INPUTS
                ? "more than " + CudaLowering.MAX_FUSED_INPUTS + " operands" : null);
        // the generated kernel has no mask values: such programs run as their compare and where ops
        b.refuse(OpKind.FUSED, "no-mask-steps", (op, in) -> ((Op.Fused) op).program().hasMasks()
                ? "compare/where steps in a fused program" : null);
        b.refuse(OpKind.FUSED, "rank<=8", CudaBackend::rankRule);
        b.refuse(OpKind.TOP_K, "selection<=60000", (op, in) -> {
            Op.TopK t = (Op.TopK) op;
            long work = (long) t.k() * in.get(0).dim(t.axis());
            return work > 60_000 ? "k x axis length " + work + " is over 60,000 (top-k selects per line)" : null;
        });
        b.refuse(OpKind.MATMUL, "batch<=6", (op, in) ->
                Math.max(in.get(0).rank(), in.get(1).rank()) > 8 ? "more than 6 batch dims" : null);
        b.refuse(OpKind.MATMUL, "no-bool", (op, in) ->
                in.get(0).dtype() == DType.BOOL ? "no bool matmul" : null);
        return b.build();
    }

    private static String rankRule(Op op, List<Shape> in) {
        List<Shape> all = new ArrayList<>(in);
        all.addAll(op.outputShapes(in));
        for (Shape s : all) {
            if (s.rank() > CudaLowering.MAX_RANK) {
                return "rank " + s.rank() + " (the kernels index up to rank " + CudaLowering.MAX_RANK + ")";
            }
        }
        return null;
    }

    @Override
    public Device device() {
        return Device.CUDA;
    }

    @Override
    public String name() {
        return "cuda (" + ctx.info.name() + ", " + ctx.info.arch() + ")";
    }

    /** The device this backend runs on. */
    public CudaDeviceInfo deviceInfo() {
        return ctx.info;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public DeviceRuntime runtime() {
        return memory;
    }

    @Override
    public Executable compile(CompileRequest request) {
        users.incrementAndGet();
        try {
            return new CudaExecutable(ctx, memory, kernels, cublas, request.graph(), request.plan(),
                    request.params(), graphs, this::release);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /** Drops one user; the last one releases the modules, cuBLAS and the staging buffer. */
    private void release() {
        if (users.decrementAndGet() == 0) {
            ctx.bind();
            ctx.driver.cuCtxSynchronize();
            if (cublas != null) {
                cublas.close(memory);
            }
            kernels.close();
            memory.close();
        }
    }

    /** Waits for the device; what executables still use stays until the last of them closes (as the SPI asks). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        release();
    }
}
