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
 * run), alias their source; the source then lives as long as its longest-lived view.
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

    public static MemoryPlan plan(Graph g, int alignment) {
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two but is " + alignment);
        }
        int n = g.size();
        // Root buffer and byte offset within it for every value; views point at their source's root.
        Map<Value, Value> root = new HashMap<>();
        Map<Value, Long> rootOffset = new HashMap<>();
        Map<Value, int[]> life = new HashMap<>(); // root -> {birth, death}
        for (Node node : g.nodes()) {
            long vo = node.outputs().size() == 1 ? viewOffset(node) : -1;
            for (Value out : node.outputs()) {
                if (vo >= 0) {
                    Value src = node.inputs().get(0);
                    root.put(out, root.get(src));
                    rootOffset.put(out, rootOffset.get(src) + vo);
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
            for (Value v : node.outputs()) {
                Value r = root.get(v);
                int[] l = life.get(r);
                slots.put(v, new MemoryPlan.Slot(offsets.get(r) + rootOffset.get(v), v.shape().byteSize(), r != v, l[0],
                        l[1]));
            }
        }
        return new MemoryPlan(g, slots, arena, unshared, alignment);
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
