package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Value;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.Executable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test double for a backend: it claims a configurable set of op kinds and compiles every graph to a
 * {@link FakeExecutable} whose host arena follows the request's memory plan. Running copies input 0 into
 * output 0 when their dtype and element count match (so a graph {@code x -> transpose([1,n] -> [n,1])}
 * really computes its result), and counts runs.
 *
 * <p>With {@code staged}, the executable behaves like a device backend: {@code hostSlot} returns null and
 * data moves only through {@code write} and {@code read}.
 */
final class FakeBackend implements Backend {
    private final Device device;
    private final Set<OpKind> supported;
    private final boolean staged;
    final AtomicInteger compileCalls = new AtomicInteger();
    final List<FakeExecutable> executables = new CopyOnWriteArrayList<>();
    volatile CompileRequest lastRequest;
    volatile boolean closed;

    FakeBackend(Device device, Set<OpKind> supported, boolean staged) {
        this.device = device;
        this.supported = Set.copyOf(supported);
        this.staged = staged;
    }

    /** Claims every op kind. */
    static FakeBackend full(Device device, boolean staged) {
        return new FakeBackend(device, EnumSet.allOf(OpKind.class), staged);
    }

    /** Claims every op kind except {@code missing}. */
    static FakeBackend without(Device device, OpKind... missing) {
        Set<OpKind> s = EnumSet.allOf(OpKind.class);
        s.removeAll(List.of(missing));
        return new FakeBackend(device, s, false);
    }

    /**
     * Registers {@code backend} for its device in the global registry; closing the result unregisters it,
     * so tests do not leak registrations into each other.
     */
    static AutoCloseableRegistration install(FakeBackend backend) {
        BackendRegistry.global().register(backend.device, () -> backend);
        return () -> BackendRegistry.global().unregister(backend.device);
    }

    interface AutoCloseableRegistration extends AutoCloseable {
        @Override
        void close();
    }

    FakeExecutable last() {
        return executables.get(executables.size() - 1);
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public String name() {
        return "fake-" + device.label() + (staged ? " (staged)" : "");
    }

    @Override
    public Set<OpKind> supportedOps() {
        return supported;
    }

    @Override
    public Executable compile(CompileRequest request) {
        compileCalls.incrementAndGet();
        lastRequest = request;
        FakeExecutable exe = new FakeExecutable(request.graph(), request.plan(), staged);
        executables.add(exe);
        return exe;
    }

    @Override
    public void close() {
        closed = true;
    }

    /** The executable: one host arena laid out by the plan. */
    static final class FakeExecutable implements Executable {
        final Graph graph;
        final MemoryPlan plan;
        final boolean staged;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment memory;
        int runs;
        int writes;
        int reads;
        boolean closed;

        FakeExecutable(Graph graph, MemoryPlan plan, boolean staged) {
            this.graph = graph;
            this.plan = plan;
            this.staged = staged;
            this.memory = arena.allocate(Math.max(1, plan.arenaBytes()), plan.alignment());
        }

        /** The arena bytes of {@code v} (for assertions, whatever the mode). */
        MemorySegment slot(Value v) {
            MemoryPlan.Slot s = plan.slot(v);
            return memory.asSlice(s.offset(), s.bytes());
        }

        boolean hostSlotIsNull(Value v) {
            return hostSlot(v) == null;
        }

        private void open() {
            if (closed) {
                throw new IllegalStateException("fake executable is closed");
            }
        }

        @Override
        public void run() {
            open();
            runs++;
            if (graph.inputs().isEmpty()) {
                return;
            }
            Value in = graph.inputs().get(0);
            Value out = graph.outputs().get(0);
            if (in.dtype() == out.dtype() && in.shape().elementCount() == out.shape().elementCount()) {
                MemorySegment.copy(slot(in), 0, slot(out), 0, in.shape().byteSize());
            }
        }

        @Override
        public MemorySegment hostSlot(Value v) {
            open();
            return staged ? null : slot(v);
        }

        @Override
        public void write(Value v, MemorySegment src) {
            open();
            if (src.byteSize() != v.shape().byteSize()) {
                throw new IllegalArgumentException("write of " + src.byteSize() + " bytes into " + v.shape());
            }
            writes++;
            MemorySegment.copy(src, 0, slot(v), 0, src.byteSize());
        }

        @Override
        public void read(Value v, MemorySegment dst) {
            open();
            if (dst.byteSize() < v.shape().byteSize()) {
                throw new IllegalArgumentException("read of " + v.shape() + " into " + dst.byteSize() + " bytes");
            }
            reads++;
            MemorySegment.copy(slot(v), 0, dst, 0, v.shape().byteSize());
        }

        @Override
        public int kernelCount() {
            open();
            int n = 0;
            for (Node node : graph.nodes()) {
                if (!OpKind.SOURCES.contains(node.kind()) && !plan.slot(node.outputs().get(0)).view()) {
                    n++;
                }
            }
            return n;
        }

        @Override
        public long arenaBytes() {
            open();
            return memory.byteSize();
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                arena.close();
            }
        }
    }
}
