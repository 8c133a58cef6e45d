package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where every value of a graph lives in one arena. Values whose lifetimes do not overlap may share bytes;
 * views (reshapes, contiguous slices) alias their source. Inputs, params, constants and outputs live for the
 * whole run.
 *
 * @param graph        the graph planned (after passes)
 * @param slots        the slot of every value
 * @param arenaBytes   bytes the arena needs
 * @param unsharedBytes bytes all non-view buffers would take with no reuse (each aligned)
 * @param alignment    byte alignment of every buffer start
 */
public record MemoryPlan(Graph graph, Map<Value, Slot> slots, long arenaBytes, long unsharedBytes, int alignment) {

    /**
     * A value's bytes: {@code [offset, offset + bytes)} of the arena.
     *
     * @param view   true when the value is a view of another value's bytes (nothing computes it); a value
     *               computed in place shares its operand's bytes but is not a view
     * @param birth  index of the node that writes it (0 for whole-run values)
     * @param death  index of the last node that reads it (the node count for whole-run values)
     */
    public record Slot(long offset, long bytes, boolean view, int birth, int death) {}

    public MemoryPlan {
        slots = Map.copyOf(slots);
    }

    public Slot slot(Value v) {
        Slot s = slots.get(v);
        if (s == null) {
            throw new IllegalArgumentException("value " + v + " is not in the plan of @" + graph.name());
        }
        return s;
    }

    /** Bytes saved by reuse. */
    public long savedBytes() {
        return unsharedBytes - arenaBytes;
    }

    /** One line per buffer ({@code offset size lifetime value}), sorted by offset, then totals. */
    public String report() {
        List<Map.Entry<Value, Slot>> e = new ArrayList<>(slots.entrySet());
        e.sort(Comparator.comparingLong((Map.Entry<Value, Slot> x) -> x.getValue().offset())
                .thenComparingInt(x -> x.getKey().nodeId()));
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Value, Slot> x : e) {
            Slot s = x.getValue();
            sb.append(String.format(Locale.ROOT, "%10d %10d [%d,%d]%s %s %s%n", s.offset(), s.bytes(), s.birth(),
                    s.death(), s.view() ? " view" : "", x.getKey(), x.getKey().shape()));
        }
        sb.append(String.format(Locale.ROOT, "arena %d bytes, %d without reuse (%.1f%% saved)%n", arenaBytes,
                unsharedBytes, unsharedBytes == 0 ? 0.0 : 100.0 * savedBytes() / unsharedBytes));
        return sb.toString();
    }
}
