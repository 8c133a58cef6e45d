package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Where every value of a graph lives. Activations (inputs, intermediates, outputs) share one arena by
 * lifetime; constants sit in a read-only constant pool of their own; params live in buffers owned outside the
 * compiled graph (a shared weight set) and are bound by reference, so the plan places none of their bytes.
 * Views (reshapes, contiguous slices) alias their source, whichever storage that is.
 *
 * <p>A control-flow node (If, While, Scan) owns a <em>region</em> of the arena for the length of its own
 * step: each of its bodies is planned as a graph of its own whose arena starts at the region's offset, so
 * the bodies of one node may overlap each other (only one runs at a time) but nothing live around the node.
 *
 * @param graph         the graph planned (after passes)
 * @param slots         the slot of every value
 * @param arenaBytes    bytes the activation arena needs (regions included)
 * @param constantBytes bytes of this graph's constant pool (bodies have pools of their own)
 * @param unsharedBytes bytes all non-view activation buffers would take with no reuse (each aligned)
 * @param alignment     byte alignment of every buffer start
 * @param regions       control-flow node id to the region its bodies run in
 */
public record MemoryPlan(Graph graph, Map<Value, Slot> slots, long arenaBytes, long constantBytes, long unsharedBytes,
                         int alignment, Map<Integer, Region> regions) {

    /** Which memory a slot is in. */
    public enum Storage {
        /** The per-graph activation arena. */
        ARENA,
        /** The graph's read-only constant pool, filled once when the graph is built. */
        CONSTANTS,
        /** The buffer bound to a param ({@link Slot#root()} is that param's value). */
        PARAM
    }

    /**
     * A value's bytes: {@code [offset, offset + bytes)} of its storage.
     *
     * @param storage which memory
     * @param root    the value whose buffer holds these bytes (the value itself unless it is a view or runs in
     *                place); for {@link Storage#PARAM} the param, whose bound buffer {@code offset} indexes
     * @param view    true when the value is a view of another value's bytes (nothing computes it); a value
     *                computed in place shares its operand's bytes but is not a view
     * @param birth   index of the node that writes it (0 for whole-run values)
     * @param death   index of the last node that reads it (the node count for whole-run values)
     */
    public record Slot(Storage storage, Value root, long offset, long bytes, boolean view, int birth, int death) {
        public Slot {
            Objects.requireNonNull(storage, "storage");
            Objects.requireNonNull(root, "root");
        }
    }

    /**
     * The arena bytes a control-flow node's bodies run in: {@code [offset, offset + bytes)}, live only during the
     * node's own step.
     *
     * @param bodies the plans of the node's bodies in op order (If: then, else; While: cond, body; Scan: body),
     *               each with offsets relative to {@code offset}
     */
    public record Region(long offset, long bytes, List<MemoryPlan> bodies) {
        public Region {
            bodies = List.copyOf(bodies);
        }
    }

    public MemoryPlan {
        slots = Map.copyOf(slots);
        regions = Map.copyOf(regions);
    }

    public Slot slot(Value v) {
        Slot s = slots.get(v);
        if (s == null) {
            throw new IllegalArgumentException("value " + v + " is not in the plan of @" + graph.name());
        }
        return s;
    }

    /** The region of control-flow node {@code nodeId}. */
    public Region region(int nodeId) {
        Region r = regions.get(nodeId);
        if (r == null) {
            throw new IllegalArgumentException("node %" + nodeId + " of @" + graph.name() + " has no region");
        }
        return r;
    }

    /** Bytes saved by reuse. */
    public long savedBytes() {
        return unsharedBytes - arenaBytes;
    }

    /** Bytes of the params the graph reads (bound from outside, not part of the arena). */
    public long paramBytes() {
        long n = 0;
        for (Map.Entry<Value, Slot> e : slots.entrySet()) {
            if (e.getValue().storage() == Storage.PARAM && e.getKey().equals(e.getValue().root())) {
                n += e.getValue().bytes();
            }
        }
        return n;
    }

    /** One line per buffer ({@code storage offset size lifetime value}), sorted by storage and offset, then totals. */
    public String report() {
        List<Map.Entry<Value, Slot>> e = new ArrayList<>(slots.entrySet());
        e.sort(Comparator.comparing((Map.Entry<Value, Slot> x) -> x.getValue().storage())
                .thenComparingLong(x -> x.getValue().offset())
                .thenComparingInt(x -> x.getKey().nodeId()).thenComparingInt(x -> x.getKey().outputIndex()));
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Value, Slot> x : e) {
            Slot s = x.getValue();
            String where = s.storage() == Storage.PARAM ? "param " + s.root() : s.storage().name().toLowerCase(Locale.ROOT);
            sb.append(String.format(Locale.ROOT, "%-9s %10d %10d [%d,%d]%s %s %s%n", where, s.offset(), s.bytes(),
                    s.birth(), s.death(), s.view() ? " view" : "", x.getKey(), x.getKey().shape()));
        }
        regions.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(r -> sb.append(String.format(Locale.ROOT,
                "region    %10d %10d %%%d (%d bodies)%n", r.getValue().offset(), r.getValue().bytes(), r.getKey(),
                r.getValue().bodies().size())));
        sb.append(String.format(Locale.ROOT, "arena %d bytes, %d without reuse (%.1f%% saved); constants %d bytes; "
                        + "params %d bytes (bound, not in the arena)%n", arenaBytes, unsharedBytes,
                unsharedBytes == 0 ? 0.0 : 100.0 * savedBytes() / unsharedBytes, constantBytes, paramBytes()));
        return sb.toString();
    }
}
