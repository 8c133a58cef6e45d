package dev.rlx.cpu;

import dev.rlx.cpu.kernels.Buf;
import dev.rlx.cpu.kernels.HalfAdapter;
import dev.rlx.cpu.kernels.Kernel;
import dev.rlx.cpu.kernels.LowerContext;
import dev.rlx.cpu.kernels.Parallel;
import dev.rlx.cpu.kernels.Reseedable;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.opt.MemoryPlanner;
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.OpRegistry;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.Tracer;
import dev.rlx.runtime.spi.CompileRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a {@link CpuExecutable}: allocates the arena, binds every value to its slice, copies constants in,
 * and lowers each computing node to a kernel in schedule order.
 */
final class CpuCompiler implements LowerContext {
    private final Arena arena;
    private final Map<Value, MemorySegment> slots = new HashMap<>();
    private final Parallel parallel;
    private final OpRegistry ops;
    private final CompileOptions options;
    private final List<Reseedable> reseedables; // shared with subgraph compilers: setRng reaches them too

    private CpuCompiler(Arena arena, Parallel parallel, OpRegistry ops, CompileOptions options,
                        List<Reseedable> reseedables) {
        this.arena = arena;
        this.parallel = parallel;
        this.ops = ops;
        this.options = options;
        this.reseedables = reseedables;
    }

    static CpuExecutable compile(CompileRequest req, Parallel parallel) {
        CpuCompiler c = new CpuCompiler(Arena.ofShared(), parallel, req.ops(), req.options(), new ArrayList<>());
        try {
            return c.build(req.graph(), req.plan());
        } catch (RuntimeException e) {
            c.arena.close();
            throw e;
        }
    }

    private CpuExecutable build(Graph g, MemoryPlan plan) {
        return build(g, plan, Tracer.fromSettings(g.name()));
    }

    private CpuExecutable build(Graph g, MemoryPlan plan, Tracer tracer) {
        MemorySegment mem = arena.allocate(Math.max(1, plan.arenaBytes()), plan.alignment());
        for (Map.Entry<Value, MemoryPlan.Slot> e : plan.slots().entrySet()) {
            MemoryPlan.Slot s = e.getValue();
            slots.put(e.getKey(), mem.asSlice(s.offset(), s.bytes()));
        }
        long adapterBytes = 0;
        for (Node n : g.nodes()) {
            adapterBytes = Math.max(adapterBytes, HalfAdapter.bytesNeeded(n));
        }
        MemorySegment adapter = adapterBytes == 0 ? null : scratch(adapterBytes);
        List<Kernel> kernels = new ArrayList<>();
        for (Node n : g.nodes()) {
            if (n.op() instanceof Op.Constant c) {
                MemorySegment.copy(MemorySegment.ofArray(c.value().bytes()), 0, slots.get(n.output()), 0,
                        c.value().byteLength());
                continue;
            }
            if (n.outputs().size() == 1 && plan.slot(n.output()).view()) {
                continue; // aliases its source: nothing to compute
            }
            Kernel k;
            try {
                Kernel wrapped = adapter == null ? null : HalfAdapter.wrap(n, this, adapter, CpuLowering::lower);
                k = wrapped != null ? wrapped : CpuLowering.lower(n, this);
            } catch (CompileException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new CompileException("cpu: cannot build a kernel for node " + n.describe() + ": " + e.getMessage(), e);
            }
            if (k != null) {
                kernels.add(tracer == null ? k : new TracedKernel(k, tracer, tracer.register(n.describe())));
            }
        }
        return new CpuExecutable(arena, plan.arenaBytes(), Map.copyOf(slots), kernels.toArray(Kernel[]::new),
                reseedables, tracer);
    }

    @Override
    public Buf buf(Value v) {
        MemorySegment s = slots.get(v);
        if (s == null) {
            throw new IllegalStateException("no slot for " + v);
        }
        return new Buf(s, v.shape());
    }

    @Override
    public Parallel parallel() {
        return parallel;
    }

    @Override
    public MemorySegment scratch(long bytes) {
        return arena.allocate(Math.max(1, bytes), 64).asSlice(0, bytes);
    }

    @Override
    public OpRegistry ops() {
        return ops;
    }

    @Override
    public RngOptions rng() {
        return options.rng();
    }

    @Override
    public void reseedable(Reseedable kernel) {
        reseedables.add(kernel);
    }

    @Override
    public SubProgram compile(Graph subgraph) {
        Graph g = new dev.rlx.opt.DeadCodeElimination().apply(subgraph);
        MemoryPlan plan = MemoryPlanner.plan(g, options.alignment());
        // Subgraphs allocate from the parent's arena, so closing the parent frees them too.
        // traced as one op, the control-flow kernel that runs it
        CpuExecutable exe = new CpuCompiler(arena, parallel, ops, options, reseedables).build(g, plan, null);
        List<Value> in = g.inputs();
        List<Value> out = g.outputs();
        return new SubProgram() {
            @Override
            public MemorySegment input(int i) {
                return exe.hostSlot(in.get(i));
            }

            @Override
            public MemorySegment output(int i) {
                return exe.hostSlot(out.get(i));
            }

            @Override
            public void run() {
                exe.run();
            }
        };
    }
}
