package dev.rlx.testkit.reference;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;
import dev.rlx.runtime.spi.HostExecutable;
import dev.rlx.runtime.spi.HostRuntime;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
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
        return ReferenceExecutable.of(request, runtime);
    }

    @Override
    public void close() {}

    /** Host memory per the plan; a run reads inputs and params from it, interprets, and writes the outputs back. */
    private static final class ReferenceExecutable extends HostExecutable {
        private final Graph graph;
        private final DeviceBuffer arena;
        private final DeviceBuffer constants;
        private final HostRuntime runtime;
        private ReferenceInterpreter interpreter;

        private ReferenceExecutable(CompileRequest req, HostRuntime runtime, DeviceBuffer arena, DeviceBuffer constants,
                                    Map<Value, MemorySegment> slots) {
            super(slots);
            this.graph = req.graph();
            this.runtime = runtime;
            this.arena = arena;
            this.constants = constants;
            this.interpreter = new ReferenceInterpreter(req.options().rng());
        }

        static ReferenceExecutable of(CompileRequest req, HostRuntime runtime) {
            DeviceBuffer arena = runtime.allocate(req.plan().arenaBytes());
            DeviceBuffer constants = runtime.allocate(req.plan().constantBytes());
            Map<Value, MemorySegment> slots = HostExecutable.slots(req.plan(), arena.host(), constants.host(), req.params());
            HostExecutable.fillConstants(req.graph(), slots);
            return new ReferenceExecutable(req, runtime, arena, constants, slots);
        }

        @Override
        public void run(CommandStream stream) {
            Map<String, Tensor> data = new LinkedHashMap<>();
            for (Value v : sources()) {
                data.put(graph.nameOf(v), Tensor.ofBytes(v.shape(), hostSlot(v).toArray(ValueLayout.JAVA_BYTE)));
            }
            List<Tensor> out = interpreter.run(graph, data);
            for (int i = 0; i < out.size(); i++) {
                MemorySegment.copy(out.get(i).segment(), 0, hostSlot(graph.outputs().get(i)), 0, out.get(i).byteLength());
            }
        }

        private List<Value> sources() {
            List<Value> s = new ArrayList<>(graph.inputs());
            s.addAll(graph.params());
            return s;
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
