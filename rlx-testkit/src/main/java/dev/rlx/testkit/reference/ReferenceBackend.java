package dev.rlx.testkit.reference;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;
import dev.rlx.runtime.spi.HostRuntime;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A backend that runs graphs with the {@link ReferenceInterpreter}: every op in double precision, obviously
 * correct and slow by design. It follows the SPI like any backend (host memory from its own runtime, activations
 * laid out by the plan, params read from their weight-set buffers by reference, constants folded by the
 * reference itself), so it tests the runtime and the pipeline as much as the numbers. Unlike a production
 * backend its {@code run} allocates. {@link #primitivesOnly()} claims only {@link dev.rlx.opt.Primitives}: the
 * pipeline then decomposes every composite before it arrives, and comparing it with the interpreter's own
 * composite definitions checks the decompositions.
 */
public final class ReferenceBackend implements Backend {
    private final Capabilities claims;
    private final String name;
    private final HostRuntime runtime = new HostRuntime(Device.CPU, 64);

    private ReferenceBackend(Capabilities claims, String name) {
        this.claims = claims;
        this.name = name;
    }

    /** The reference claiming every op. */
    public static ReferenceBackend full() {
        return new ReferenceBackend(Capabilities.all(), "reference (float64)");
    }

    /** The reference claiming only the primitive ops. */
    public static ReferenceBackend primitivesOnly() {
        return new ReferenceBackend(Capabilities.primitives(), "reference (float64, primitives only)");
    }

    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Capabilities capabilities() {
        return claims;
    }

    @Override
    public DeviceRuntime runtime() {
        return runtime;
    }

    @Override
    public ConstantEvaluator constantEvaluator(CompileOptions options) {
        return new ReferenceInterpreter(options.rng());
    }

    @Override
    public Executable compile(CompileRequest request) {
        return new ReferenceExecutable(request, runtime);
    }

    @Override
    public void close() {}

    /** Host memory per the plan; a run reads inputs and params from it, interprets, and writes the outputs back. */
    private static final class ReferenceExecutable implements Executable {
        private final Graph graph;
        private final DeviceBuffer arena;
        private final DeviceBuffer constants;
        private final HostRuntime runtime;
        private final Map<Value, MemorySegment> slots = new HashMap<>();
        private ReferenceInterpreter interpreter;

        ReferenceExecutable(CompileRequest req, HostRuntime runtime) {
            this.graph = req.graph();
            this.runtime = runtime;
            MemoryPlan plan = req.plan();
            this.arena = runtime.allocate(plan.arenaBytes());
            this.constants = runtime.allocate(plan.constantBytes());
            this.interpreter = new ReferenceInterpreter(req.options().rng());
            for (Map.Entry<Value, MemoryPlan.Slot> e : plan.slots().entrySet()) {
                MemoryPlan.Slot s = e.getValue();
                MemorySegment base = switch (s.storage()) {
                    case ARENA -> arena.host();
                    case CONSTANTS -> constants.host();
                    case PARAM -> req.params().get(s.root()).host();
                };
                slots.put(e.getKey(), base.asSlice(s.offset(), s.bytes()));
            }
            for (Node n : graph.nodes()) {
                if (n.op() instanceof Op.Constant c) {
                    MemorySegment.copy(c.value().segment(), 0, slots.get(n.output()), 0, c.value().byteLength());
                }
            }
        }

        @Override
        public void run(CommandStream stream) {
            Map<String, Tensor> data = new LinkedHashMap<>();
            for (Value v : sources()) {
                data.put(graph.nameOf(v), Tensor.ofBytes(v.shape(), slots.get(v).toArray(ValueLayout.JAVA_BYTE)));
            }
            List<Tensor> out = interpreter.run(graph, data);
            for (int i = 0; i < out.size(); i++) {
                MemorySegment.copy(out.get(i).segment(), 0, slots.get(graph.outputs().get(i)), 0, out.get(i).byteLength());
            }
        }

        private List<Value> sources() {
            List<Value> s = new ArrayList<>(graph.inputs());
            s.addAll(graph.params());
            return s;
        }

        @Override
        public MemorySegment hostSlot(Value v) {
            MemorySegment s = slots.get(v);
            if (s == null) {
                throw new IllegalArgumentException("value " + v + " has no slot in this executable");
            }
            return s;
        }

        @Override
        public void write(Value v, MemorySegment src) {
            MemorySegment.copy(src, 0, hostSlot(v), 0, hostSlot(v).byteSize());
        }

        @Override
        public void read(Value v, MemorySegment dst) {
            MemorySegment.copy(hostSlot(v), 0, dst, 0, hostSlot(v).byteSize());
        }

        @Override
        public void setRng(RngOptions rng) {
            interpreter = new ReferenceInterpreter(rng);
        }

        @Override
        public int kernelCount() {
            return graph.size();
        }

        @Override
        public long deviceBytes() {
            return arena.byteSize() + constants.byteSize();
        }

        @Override
        public void close() {
            runtime.free(arena);
            runtime.free(constants);
        }
    }
}
