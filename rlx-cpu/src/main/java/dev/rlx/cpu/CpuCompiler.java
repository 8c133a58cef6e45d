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
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.OpRegistry;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.Tracer;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceAllocator;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.HostExecutable;
import dev.rlx.runtime.spi.WeightCopies;
import dev.rlx.runtime.spi.WriteCount;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Builds a {@link CpuExecutable}: resolves every value of the plan to its bytes (an arena slice, a constant-pool
 * slice filled with the constant, or a slice of a bound param buffer), and lowers each computing node to a
 * kernel in schedule order. Control-flow bodies are built the same way in the arena region the plan gave the
 * node.
 */
final class CpuCompiler implements LowerContext {
    private final CpuMemory memory;
    private final MemoryPlan plan;
    private final MemorySegment arena; // this graph's arena (a body: its region of the enclosing arena)
    private final Map<Value, MemorySegment> slots = new HashMap<>();
    private final Parallel parallel;
    private final OpRegistry ops;
    private final CompileOptions options;
    private final List<Reseedable> reseedables; // shared with body compilers: setRng reaches them too
    private final Map<Value, WeightCopies> paramCopies; // params that change only through the runtime's setters
    /** Copies of this graph's constants (held by the graph, bounded by a budget of its own), shared with bodies. */
    private final ConstantCopies constantCopies;

    /** The copies of one executable's constants: per constant value, in the executable's memory. */
    private record ConstantCopies(Map<Value, WeightCopies> byValue, AtomicLong budget) {}

    private CpuCompiler(CpuMemory memory, MemoryPlan plan, MemorySegment arena, Parallel parallel, OpRegistry ops,
                        CompileOptions options, List<Reseedable> reseedables, Map<Value, WeightCopies> paramCopies,
                        ConstantCopies constantCopies) {
        this.paramCopies = paramCopies;
        this.constantCopies = constantCopies;
        this.memory = memory;
        this.plan = plan;
        this.arena = arena;
        this.parallel = parallel;
        this.ops = ops;
        this.options = options;
        this.reseedables = reseedables;
    }

    /** Builds {@code req}; {@code traced} asks for a tracer from the settings (off for constant folding). */
    static CpuExecutable compile(CompileRequest req, Parallel parallel, DeviceAllocator allocator, boolean traced) {
        CpuMemory memory = new CpuMemory(allocator);
        try {
            MemorySegment arena = memory.buffer(req.plan().arenaBytes());
            CpuCompiler c = new CpuCompiler(memory, req.plan(), arena, parallel, req.ops(), req.options(),
                    new ArrayList<>(), req.weightCopies(), new ConstantCopies(new IdentityHashMap<>(),
                    new AtomicLong(traced ? WeightCopies.budgetBytes() : 0))); // constant folding runs once: no copies
            Tracer tracer = traced ? Tracer.fromSettings(req.graph().name()) : null;
            return c.build(req.graph(), req.params(), tracer, memory);
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
    }

    private CpuExecutable build(Graph g, Map<Value, DeviceBuffer> params, Tracer tracer, CpuMemory owner) {
        MemorySegment constants = plan.constantBytes() == 0 ? MemorySegment.NULL : memory.buffer(plan.constantBytes());
        slots.putAll(HostExecutable.slots(plan, arena, constants, params));
        HostExecutable.fillConstants(g, slots);
        long adapterBytes = 0;
        for (Node n : g.nodes()) {
            adapterBytes = Math.max(adapterBytes, HalfAdapter.bytesNeeded(n));
        }
        MemorySegment adapter = adapterBytes == 0 ? null : scratch(adapterBytes);
        List<Kernel> kernels = new ArrayList<>();
        for (Node n : g.nodes()) {
            if (n.op() instanceof Op.Constant) {
                continue; // filled above
            }
            if (n.outputs().size() == 1 && plan.slot(n.output()).view()) {
                continue; // aliases its source: nothing to compute
            }
            Kernel k;
            memory.beginKernel();
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
        return new CpuExecutable(owner, Map.copyOf(slots), kernels.toArray(Kernel[]::new), reseedables, tracer);
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
    public WeightCopies weightCopies(Value v) {
        if (v.node().op() instanceof Op.Constant) {
            return constantCopies.byValue().computeIfAbsent(v,
                    c -> new WeightCopies(WriteCount.NEVER, constantCopies.budget(), memory::scratch));
        }
        return paramCopies.get(v);
    }

    @Override
    public MemorySegment scratch(long bytes) {
        return memory.scratch(bytes);
    }

    @Override
    public MemorySegment workspace(long bytes) {
        return memory.workspace(bytes);
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
    public SubProgram body(Node n, int index) {
        MemoryPlan.Region region = plan.region(n.id());
        MemoryPlan bodyPlan = region.bodies().get(index);
        Graph g = bodyPlan.graph();
        MemorySegment bodyArena = arena.asSlice(region.offset(), bodyPlan.arenaBytes());
        // traced as one op, the control-flow kernel that runs it; its memory is the enclosing executable's
        CpuExecutable exe = new CpuCompiler(memory, bodyPlan, bodyArena, parallel, ops, options, reseedables,
                Map.of(), constantCopies).build(g, Map.of(), null, null);
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
