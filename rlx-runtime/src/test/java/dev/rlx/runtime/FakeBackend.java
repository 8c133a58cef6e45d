package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.spi.Backend;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.CompileRequest;
import dev.rlx.runtime.spi.DeviceAllocator;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.DeviceRuntime;
import dev.rlx.runtime.spi.Executable;
import dev.rlx.runtime.spi.SyncStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
    private final Capabilities capabilities;
    private final boolean staged;
    final FakeRuntime runtime;
    final AtomicInteger compileCalls = new AtomicInteger();
    final List<FakeExecutable> executables = new CopyOnWriteArrayList<>();
    volatile CompileRequest lastRequest;
    volatile boolean closed;

    FakeBackend(Device device, Set<OpKind> supported, boolean staged) {
        this(device, Capabilities.ofKinds(supported), staged);
    }

    /** A fake that claims what {@code capabilities} claims. */
    FakeBackend(Device device, Capabilities capabilities, boolean staged) {
        this.device = device;
        this.capabilities = capabilities;
        this.staged = staged;
        this.runtime = new FakeRuntime(device, staged);
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
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public DeviceRuntime runtime() {
        return runtime;
    }

    @Override
    public Executable compile(CompileRequest request) {
        compileCalls.incrementAndGet();
        lastRequest = request;
        FakeExecutable exe = new FakeExecutable(request, staged);
        executables.add(exe);
        return exe;
    }

    @Override
    public void close() {
        closed = true;
    }

    /**
     * The fake device's memory: heap-backed buffers whose bytes are host memory unless {@code staged}, in which
     * case they are reachable only through the allocator's copies (counted), like a GPU's.
     */
    static final class FakeRuntime implements DeviceRuntime, DeviceAllocator {
        private final Device device;
        private final boolean staged;
        final AtomicInteger uploads = new AtomicInteger();
        final AtomicInteger downloads = new AtomicInteger();
        final AtomicLong allocated = new AtomicLong();

        FakeRuntime(Device device, boolean staged) {
            this.device = device;
            this.staged = staged;
        }

        @Override
        public Device device() {
            return device;
        }

        @Override
        public DeviceAllocator allocator() {
            return this;
        }

        @Override
        public CommandStream newStream() {
            return SyncStream.INSTANCE;
        }

        @Override
        public int alignment() {
            return 4; // below every alignment the tests ask for, so theirs decides the plan
        }

        @Override
        public DeviceBuffer allocate(long bytes) {
            allocated.addAndGet(bytes);
            return new FakeBuffer(Arena.ofAuto().allocate(Math.max(1, bytes), 16).asSlice(0, bytes), staged);
        }

        @Override
        public void free(DeviceBuffer buffer) {
            FakeBuffer b = (FakeBuffer) buffer;
            if (!b.freed) {
                b.freed = true;
                allocated.addAndGet(-b.bytes.byteSize());
            }
        }

        @Override
        public void copyToDevice(MemorySegment src, DeviceBuffer dst, long dstOffset) {
            uploads.incrementAndGet();
            MemorySegment.copy(src, 0, ((FakeBuffer) dst).bytes, dstOffset, src.byteSize());
        }

        @Override
        public void copyToHost(DeviceBuffer src, long srcOffset, MemorySegment dst) {
            downloads.incrementAndGet();
            MemorySegment.copy(((FakeBuffer) src).bytes, srcOffset, dst, 0, dst.byteSize());
        }

        @Override
        public long allocatedBytes() {
            return allocated.get();
        }
    }

    /** A fake device buffer: its bytes, shown as host memory only when not staged. */
    static final class FakeBuffer implements DeviceBuffer {
        final MemorySegment bytes;
        final boolean staged;
        volatile boolean freed;

        FakeBuffer(MemorySegment bytes, boolean staged) {
            this.bytes = bytes;
            this.staged = staged;
        }

        @Override
        public long byteSize() {
            return bytes.byteSize();
        }

        @Override
        public MemorySegment host() {
            return staged ? null : bytes;
        }

        @Override
        public boolean isFreed() {
            return freed;
        }
    }

    /** The executable: one host arena laid out by the plan. */
    static final class FakeExecutable implements Executable {
        final Graph graph;
        final MemoryPlan plan;
        final boolean staged;
        final Map<Value, DeviceBuffer> params;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment memory;
        private final MemorySegment constants;
        int runs;
        int writes;
        int reads;
        boolean closed;

        FakeExecutable(CompileRequest request, boolean staged) {
            this.graph = request.graph();
            this.plan = request.plan();
            this.params = request.params();
            this.staged = staged;
            this.memory = arena.allocate(Math.max(1, plan.arenaBytes()), plan.alignment());
            this.constants = arena.allocate(Math.max(1, plan.constantBytes()), plan.alignment());
            for (Node n : graph.nodes()) {
                if (n.op() instanceof Op.Constant c) {
                    MemorySegment.copy(c.value().segment(), 0, slot(n.output()), 0, c.value().byteLength());
                }
            }
        }

        /** The bytes of {@code v} wherever they live (for assertions, whatever the mode). */
        MemorySegment slot(Value v) {
            MemoryPlan.Slot s = plan.slot(v);
            MemorySegment base = switch (s.storage()) {
                case ARENA -> memory;
                case CONSTANTS -> constants;
                case PARAM -> ((FakeBuffer) params.get(s.root())).bytes;
            };
            return base.asSlice(s.offset(), s.bytes());
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
        public void run(CommandStream stream) {
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
        public long deviceBytes() {
            open();
            return memory.byteSize() + constants.byteSize();
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
