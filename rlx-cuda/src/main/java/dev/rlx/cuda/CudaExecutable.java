package dev.rlx.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.cuda.bindings.CuResults;
import dev.rlx.cuda.bindings.Cublas;
import dev.rlx.cuda.bindings.CudaDriver;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.Executable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A graph compiled for CUDA: its arena and constant pool in device memory, its {@link Step}s with their argument
 * blocks written once in native memory, and (unless graphs are off) the whole run captured once as a CUDA graph
 * on a stream of its own, so {@link #run} is one {@code cuGraphLaunch} whatever the number of kernels. Without a
 * graph, run enqueues each launch and GEMM in order. Either way run allocates nothing.
 */
final class CudaExecutable implements Executable {
    /** Bytes of a kernel's argument block: 8 addresses and 72 ints (common.cuh's {@code struct Args}). */
    static final int ARG_BYTES = 8 * 8 + 72 * 4;

    private record Loc(CudaBuffer buffer, long offset, long bytes) {
        long address() {
            return buffer.address + offset;
        }
    }

    private final CudaContext ctx;
    private final CudaMemory memory;
    private final CublasHandle cublas;
    private final CudaBuffer arena;
    private final CudaBuffer constants;
    private final Map<Value, Loc> locs = new HashMap<>();
    private final Arena nativeArgs = Arena.ofShared();
    private final List<Step> steps;
    private final long[] functions;
    private final MemorySegment[] params;
    private final MemorySegment[] scalars; // alpha then beta of each GEMM
    private final long stream;
    private final Runnable onClose;
    private long graph;
    private long graphExec;
    private boolean closed;

    CudaExecutable(CudaContext ctx, CudaMemory memory, Kernels kernels, CublasHandle cublas, Graph g,
                   MemoryPlan plan, Map<Value, DeviceBuffer> paramBuffers, boolean useGraph, Runnable onClose) {
        this.ctx = ctx;
        this.onClose = onClose;
        this.memory = memory;
        this.cublas = cublas;
        this.arena = (CudaBuffer) memory.allocate(plan.arenaBytes());
        CudaBuffer cpool = null;
        long s = 0;
        try {
            cpool = (CudaBuffer) memory.allocate(plan.constantBytes());
            for (Map.Entry<Value, MemoryPlan.Slot> e : plan.slots().entrySet()) {
                MemoryPlan.Slot slot = e.getValue();
                CudaBuffer base = switch (slot.storage()) {
                    case ARENA -> arena;
                    case CONSTANTS -> cpool;
                    case PARAM -> paramBuffer(paramBuffers, slot.root());
                };
                locs.put(e.getKey(), new Loc(base, slot.offset(), slot.bytes()));
            }
            for (Node n : g.nodes()) {
                if (n.op() instanceof Op.Constant c && c.value().byteLength() > 0) {
                    Loc l = loc(n.output());
                    memory.write(c.value().segment(), l.buffer(), l.offset(), c.value().byteLength());
                }
            }
            CudaLowering lowering = new CudaLowering(v -> loc(v).address(), cublas != null);
            for (Node n : g.nodes()) {
                if (n.outputs().size() == 1 && plan.slot(n.output()).view()) {
                    continue; // a view: the planner aliased its bytes, nothing computes it
                }
                lowering.lower(n);
            }
            this.steps = List.copyOf(lowering.steps());
            this.functions = new long[steps.size()];
            this.params = new MemorySegment[steps.size()];
            this.scalars = new MemorySegment[2 * steps.size()];
            for (int i = 0; i < steps.size(); i++) {
                prepare(i, steps.get(i), kernels);
            }
            s = ctx.newStream();
            this.stream = s;
            if (useGraph && !steps.isEmpty()) {
                capture();
            }
        } catch (RuntimeException e) {
            memory.free(arena);
            if (cpool != null) {
                memory.free(cpool);
            }
            if (s != 0) {
                ctx.driver.cuStreamDestroy(s);
            }
            nativeArgs.close();
            throw e;
        }
        this.constants = cpool;
    }

    private static CudaBuffer paramBuffer(Map<Value, DeviceBuffer> params, Value param) {
        DeviceBuffer b = params.get(param);
        if (b == null) {
            throw new CompileException("param " + param + " is not bound to a buffer");
        }
        if (!(b instanceof CudaBuffer cb)) {
            throw new CompileException("param " + param + " is bound to memory that is not CUDA device memory");
        }
        return cb;
    }

    private Loc loc(Value v) {
        Loc l = locs.get(v);
        if (l == null) {
            throw new CompileException("value " + v + " has no slot in the memory plan");
        }
        return l;
    }

    /** Writes step i's native arguments once: a launch's block and parameter array, a GEMM's scalars. */
    private void prepare(int i, Step step, Kernels kernels) {
        switch (step) {
            case Step.Launch l -> {
                functions[i] = kernels.function(l.kernel(), l.what());
                MemorySegment block = nativeArgs.allocate(ARG_BYTES, 16);
                for (int k = 0; k < l.ptrs().length; k++) {
                    block.setAtIndex(JAVA_LONG, k, l.ptrs()[k]);
                }
                for (int k = 0; k < l.ints().length; k++) {
                    block.set(JAVA_INT, 64 + 4L * k, l.ints()[k]);
                }
                MemorySegment p = nativeArgs.allocate(ADDRESS);
                p.set(ADDRESS, 0, block);
                params[i] = p;
            }
            case Step.Gemm gm -> {
                boolean f64 = gm.computeType() == Cublas.CUBLAS_COMPUTE_64F;
                MemorySegment alpha = nativeArgs.allocate(8, 8);
                MemorySegment beta = nativeArgs.allocate(8, 8);
                if (f64) {
                    alpha.set(JAVA_DOUBLE, 0, 1.0);
                } else {
                    alpha.set(JAVA_FLOAT, 0, 1.0f);
                }
                scalars[2 * i] = alpha;
                scalars[2 * i + 1] = beta;
            }
        }
    }

    /** Records every step on the private stream into a CUDA graph and instantiates it. */
    private void capture() {
        ctx.bind();
        ctx.check(ctx.driver.cuStreamBeginCapture(stream, CudaDriver.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                "cuStreamBeginCapture_v2", "capturing a graph");
        try (Arena a = Arena.ofConfined()) {
            try {
                enqueue(stream);
            } finally {
                MemorySegment gp = a.allocate(JAVA_LONG);
                int r = ctx.driver.cuStreamEndCapture(stream, gp);
                graph = gp.get(JAVA_LONG, 0);
                ctx.check(r, "cuStreamEndCapture", "capturing a graph");
            }
            MemorySegment ep = a.allocate(JAVA_LONG);
            ctx.check(ctx.driver.cuGraphInstantiate(ep, graph, 0), "cuGraphInstantiateWithFlags",
                    "instantiating a graph of " + steps.size() + " steps");
            graphExec = ep.get(JAVA_LONG, 0);
        } catch (RuntimeException e) {
            if (graph != 0) {
                ctx.driver.cuGraphDestroy(graph);
                graph = 0;
            }
            throw e;
        }
    }

    /** Enqueues every step on {@code s} in order. */
    private void enqueue(long s) {
        for (int i = 0; i < functions.length; i++) {
            Step step = steps.get(i);
            if (step instanceof Step.Launch l) {
                int r = ctx.driver.cuLaunchKernel(functions[i], l.gridX(), l.gridY(), l.gridZ(), l.blockX(),
                        l.blockY(), 1, 0, s, params[i]);
                if (r != CuResults.CUDA_SUCCESS) {
                    ctx.check(r, "cuLaunchKernel", "launching " + l.kernel().file() + ".cu for " + l.what());
                }
            } else {
                cublas.gemm((Step.Gemm) step, scalars[2 * i], scalars[2 * i + 1], s);
            }
        }
    }

    @Override
    public void run(CommandStream commandStream) {
        if (!(commandStream instanceof CudaStream cs)) {
            throw new IllegalArgumentException("a CUDA graph runs on a stream of the CUDA runtime");
        }
        ctx.bind();
        if (graphExec != 0) {
            int r = ctx.driver.cuGraphLaunch(graphExec, cs.handle);
            if (r != CuResults.CUDA_SUCCESS) {
                ctx.check(r, "cuGraphLaunch", "running a graph");
            }
        } else {
            enqueue(cs.handle);
        }
    }

    /** Whether run replays a captured CUDA graph. */
    boolean usesGraph() {
        return graphExec != 0;
    }

    @Override
    public MemorySegment hostSlot(Value v) {
        return null;
    }

    @Override
    public void write(Value v, MemorySegment src) {
        Loc l = loc(v);
        memory.write(src, l.buffer(), l.offset(), l.bytes());
    }

    @Override
    public void read(Value v, MemorySegment dst) {
        Loc l = loc(v);
        memory.read(l.buffer(), l.offset(), dst, l.bytes());
    }

    @Override
    public int kernelCount() {
        return steps.size();
    }

    @Override
    public long deviceBytes() {
        return arena.byteSize() + constants.byteSize();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ctx.synchronize(stream, "closing a graph");
        if (graphExec != 0) {
            ctx.driver.cuGraphExecDestroy(graphExec);
        }
        if (graph != 0) {
            ctx.driver.cuGraphDestroy(graph);
        }
        ctx.driver.cuStreamDestroy(stream);
        memory.free(arena);
        memory.free(constants);
        nativeArgs.close();
        onClose.run();
    }
}
