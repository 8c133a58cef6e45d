package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Assigns arena offsets by lifetime. The schedule is node order. A buffer lives from the node that writes
 * it to the last node that reads it (or the whole run for inputs, params, constants and graph outputs).
 * Buffers are placed largest first, each at the lowest aligned offset that overlaps no placed buffer with an
 * intersecting lifetime: deterministic, and usually close to the peak of live bytes.
 *
 * <p>Views: a reshape, and a step-1 slice whose leading dims are all 1 (so the result is one contiguous
 * run), alias their source; the source then lives as long as its longest-lived view. In-place: see
 * {@link #plan(Graph, int, boolean)}.
 */
public final class MemoryPlanner {
    private MemoryPlanner() {}

    /** Whether {@code n} can be a view of its first operand, and at which byte offset; -1 if not. */
    public static long viewOffset(Node n) {
        if (n.kind() == OpKind.RESHAPE) {
            return 0;
        }
        if (n.op() instanceof Op.Slice s && s.step() == 1) {
            if (s.length() == 0) {
                return 0; // no element is read, so start may lie anywhere (even outside the axis)
            }
            Shape in = n.inputs().get(0).shape();
            for (int i = 0; i < s.axis(); i++) {
                if (in.dim(i) != 1) {
                    return -1;
                }
            }
            return s.start() * in.elementCount(s.axis() + 1, in.rank()) * in.dtype().byteSize();
        }
        return -1;
    }

    /** Plans without in-place execution. */
    public static MemoryPlan plan(Graph g, int alignment) {
        return plan(g, alignment, false);
    }

    /**
     * Plans {@code g}. With {@code inPlace}, an element-wise op (unary, binary, fused) writes into an operand
     * of its own shape and dtype whose last reader it is: the operand's buffer is reused, not a new one.
     */
    public static MemoryPlan plan(Graph g, int alignment, boolean inPlace) {
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two but is " + alignment);
        }
        Lifetimes first = lifetimes(g, null);
        Lifetimes lt = inPlace ? lifetimes(g, first) : first;
        Map<Value, Value> root = lt.root;
        Map<Value, Long> rootOffset = lt.offset;
        Map<Value, int[]> life = lt.life;
        List<Value> buffers = new ArrayList<>(life.keySet());
        buffers.sort(Comparator.comparingLong((Value v) -> -v.shape().byteSize())
                .thenComparingInt(v -> life.get(v)[0]).thenComparingInt(Value::nodeId).thenComparingInt(Value::outputIndex));
        Map<Value, Long> offsets = new IdentityHashMap<>();
        List<Value> placed = new ArrayList<>();
        long arena = 0;
        long unshared = 0;
        for (Value b : buffers) {
            long size = b.shape().byteSize();
            unshared += align(size, alignment);
            long best = bestOffset(b, size, placed, offsets, life, alignment);
            offsets.put(b, best);
            placed.add(b);
            arena = Math.max(arena, align(best + size, alignment));
        }

        Map<Value, MemoryPlan.Slot> slots = new HashMap<>();
        for (Node node : g.nodes()) {
            boolean view = node.outputs().size() == 1 && viewOffset(node) >= 0; // in-place results still compute
            for (Value v : node.outputs()) {
                Value r = root.get(v);
                int[] l = life.get(r);
                slots.put(v, new MemoryPlan.Slot(offsets.get(r) + rootOffset.get(v), v.shape().byteSize(), view, l[0],
                        l[1]));
            }
        }
        return new MemoryPlan(g, slots, arena, unshared, alignment);
    }

    /** Each value's root buffer and byte offset in it, and each root's [birth, death]. */
    private record Lifetimes(Map<Value, Value> root, Map<Value, Long> offset, Map<Value, int[]> life) {}

    /**
     * Follows views (and, when {@code plain} is given, in-place reuse decided from its lifetimes) to each
     * value's root buffer, and extends each root's lifetime over every read of it.
     */
    private static Lifetimes lifetimes(Graph g, Lifetimes plain) {
        int n = g.size();
        Map<Value, Value> root = new HashMap<>();
        Map<Value, Long> rootOffset = new HashMap<>();
        Map<Value, int[]> life = new HashMap<>(); // root -> {birth, death}
        for (Node node : g.nodes()) {
            long vo = node.outputs().size() == 1 ? viewOffset(node) : -1;
            Value reuse = plain == null ? null : reusable(node, plain);
            for (Value out : node.outputs()) {
                if (vo >= 0 || reuse != null) {
                    Value src = vo >= 0 ? node.inputs().get(0) : reuse;
                    root.put(out, root.get(src));
                    rootOffset.put(out, rootOffset.get(src) + (vo >= 0 ? vo : 0));
                } else {
                    root.put(out, out);
                    rootOffset.put(out, 0L);
                    boolean wholeRun = OpKind.SOURCES.contains(node.kind());
                    life.put(out, new int[] {wholeRun ? 0 : node.id(), wholeRun ? n : node.id()});
                }
            }
            for (Value in : node.inputs()) {
                int[] l = life.get(root.get(in));
                l[1] = Math.max(l[1], node.id());
            }
        }
        for (Value out : g.outputs()) {
            life.get(root.get(out))[1] = n;
        }
        return new Lifetimes(root, rootOffset, life);
    }

    /**
     * The operand whose buffer element-wise {@code node} may overwrite, or null: same shape and dtype as the
     * result, a buffer of its own (not a view, input, param, constant or output), read by nothing after
     * {@code node} (views included), and not shared with another operand.
     */
    private static Value reusable(Node node, Lifetimes plain) {
        if (node.outputs().size() != 1 || !(node.op() instanceof Op.Unary || node.op() instanceof Op.Binary
                || node.op() instanceof Op.Fused)) {
            return null;
        }
        Value out = node.output();
        for (Value v : node.inputs()) {
            if (plain.root.get(v) != v || !v.shape().equals(out.shape()) || OpKind.SOURCES.contains(v.node().kind())) {
                continue;
            }
            if (plain.life.get(v)[1] != node.id()) {
                continue; // read later, or a graph output (whose death is past the last node)
            }
            boolean shared = false;
            for (Value w : node.inputs()) {
                shared |= !w.equals(v) && plain.root.get(w) == v;
            }
            if (!shared) {
                return v;
            }
        }
        return null;
    }

    private static long bestOffset(Value b, long size, List<Value> placed, Map<Value, Long> offsets,
                                   Map<Value, int[]> life, int alignment) {
        if (size == 0) {
            return 0;
        }
        int[] lb = life.get(b);
        List<long[]> conflicts = new ArrayList<>(); // [start, end) of placed buffers alive at the same time
        for (Value p : placed) {
            int[] lp = life.get(p);
            long ps = p.shape().byteSize();
            if (ps > 0 && lp[0] <= lb[1] && lb[0] <= lp[1]) {
                conflicts.add(new long[] {offsets.get(p), offsets.get(p) + ps});
            }
        }
        conflicts.sort(Comparator.comparingLong(c -> c[0]));
        long candidate = 0;
        for (long[] c : conflicts) {
            if (candidate + size <= c[0]) {
                break; // fits in the gap before this buffer
            }
            candidate = Math.max(candidate, align(c[1], alignment));
        }
        return candidate;
    }

    static long align(long x, int alignment) {
        return (x + alignment - 1) & -(long) alignment;
    }
}
