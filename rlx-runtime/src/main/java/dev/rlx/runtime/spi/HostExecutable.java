package dev.rlx.runtime.spi;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.CompileException;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * An executable of a backend that computes in host memory: every value's bytes are a host segment (an arena slice,
 * a constant-pool slice or a slice of a bound param buffer), handed out by {@link #hostSlot} so inputs are written
 * and outputs read in place. {@link #slots} lays a plan out over such memory.
 */
public abstract class HostExecutable implements Executable {
    private final Map<Value, MemorySegment> slots;

    protected HostExecutable(Map<Value, MemorySegment> slots) {
        this.slots = Map.copyOf(slots);
    }

    /**
     * Each value of {@code plan} resolved to its bytes: {@code ARENA} slots in {@code arena}, {@code CONSTANTS} in
     * {@code constants}, {@code PARAM} slots in the host memory of the buffer {@code params} binds to the root.
     *
     * @throws CompileException when a param is unbound or bound to memory the host cannot address
     */
    public static Map<Value, MemorySegment> slots(MemoryPlan plan, MemorySegment arena, MemorySegment constants,
                                                   Map<Value, DeviceBuffer> params) {
        Map<Value, MemorySegment> out = new HashMap<>();
        for (Map.Entry<Value, MemoryPlan.Slot> e : plan.slots().entrySet()) {
            MemoryPlan.Slot s = e.getValue();
            MemorySegment base = switch (s.storage()) {
                case ARENA -> arena;
                case CONSTANTS -> constants;
                case PARAM -> paramBytes(params, s.root());
            };
            out.put(e.getKey(), base.asSlice(s.offset(), s.bytes()));
        }
        return out;
    }

    /** Copies the value of every {@code Op.Constant} of {@code g} into its slot. */
    public static void fillConstants(Graph g, Map<Value, MemorySegment> slots) {
        for (Node n : g.nodes()) {
            if (n.op() instanceof Op.Constant c) {
                MemorySegment.copy(c.value().segment(), 0, slots.get(n.output()), 0, c.value().byteLength());
            }
        }
    }

    private static MemorySegment paramBytes(Map<Value, DeviceBuffer> params, Value param) {
        DeviceBuffer b = params.get(param);
        if (b == null) {
            throw new CompileException("param " + param + " is not bound to a buffer");
        }
        if (b.host() == null) {
            throw new CompileException("param " + param + " is bound to device memory a host backend cannot read");
        }
        return b.host();
    }

    @Override
    public final MemorySegment hostSlot(Value v) {
        MemorySegment s = slots.get(v);
        if (s == null) {
            throw new IllegalArgumentException("value " + v + " has no slot in this executable");
        }
        return s;
    }

    @Override
    public final void write(Value v, MemorySegment src) {
        MemorySegment dst = hostSlot(v);
        MemorySegment.copy(src, 0, dst, 0, dst.byteSize());
    }

    @Override
    public final void read(Value v, MemorySegment dst) {
        MemorySegment src = hostSlot(v);
        MemorySegment.copy(src, 0, dst, 0, src.byteSize());
    }
}
