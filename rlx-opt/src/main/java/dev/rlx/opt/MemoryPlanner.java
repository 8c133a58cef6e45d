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
import java.util.List;
import java.util.Map;

/**
 * Lays out a graph's memory (see {@link MemoryPlan}). Params are not placed (they are bound from outside);
 * constants go one after another into the constant pool; activations share the arena by lifetime. The
 * schedule is node order. An activation lives from the node that writes it to the last node that reads it (or
 * the whole run for inputs and graph outputs). Buffers are placed largest first, each at the lowest aligned
 * offset that overlaps no placed buffer with an intersecting lifetime: deterministic, and usually close to the
 * peak of live bytes.
 *
 * <p>Views: a reshape, and a step-1 slice whose leading dims are all 1 (so the result is one contiguous
 * run), alias their source; the source then lives as long as its longest-lived view. In-place: see
 * {@link #plan(Graph, int, boolean)}. Control flow: each body is planned recursively (with the same settings)
 * and the node gets a region of the largest body's arena, live only at its own step.
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

        // Arena buffers: activation roots and control-flow regions.
        List<Buffer> buffers = new ArrayList<>();
        Map<Value, Buffer> ofRoot = new HashMap<>();
        long constants = 0;
        Map<Value, Long> constantOffset = new HashMap<>();
        for (Node node : g.nodes()) {
            for (Value v : node.outputs()) {
                if (lt.root.get(v) != v) {
                    continue;
                }
                switch (node.kind()) {
                    case PARAM -> { }
                    case CONSTANT -> {
                        constantOffset.put(v, constants);
                        constants = align(constants + v.shape().byteSize(), alignment);
                    }
                    default -> {
                        int[] l = lt.life.get(v);
                        Buffer b = new Buffer(v.shape().byteSize(), l[0], l[1], node.id(), v.outputIndex());
                        buffers.add(b);
                        ofRoot.put(v, b);
                    }
                }
            }
        }
        Map<Integer, Buffer> regionBuffers = new HashMap<>();
        Map<Integer, List<MemoryPlan>> bodyPlans = new HashMap<>();
        for (Node node : g.nodes()) {
            List<Graph> bodies = Subgraphs.bodies(node.op());
            if (bodies.isEmpty()) {
                continue;
            }
            List<MemoryPlan> plans = new ArrayList<>();
            long bytes = 0;
            for (Graph body : bodies) {
                MemoryPlan p = plan(body, alignment, inPlace);
                plans.add(p);
                bytes = Math.max(bytes, p.arenaBytes());
            }
            Buffer b = new Buffer(bytes, node.id(), node.id(), node.id(), -1);
            buffers.add(b);
            regionBuffers.put(node.id(), b);
            bodyPlans.put(node.id(), plans);
        }

        long arena = place(buffers, alignment);
        long unshared = 0;
        for (Buffer b : buffers) {
            unshared += align(b.size, alignment);
        }

        Map<Value, MemoryPlan.Slot> slots = new HashMap<>();
        for (Node node : g.nodes()) {
            boolean view = node.outputs().size() == 1 && viewOffset(node) >= 0; // in-place results still compute
            for (Value v : node.outputs()) {
                Value r = lt.root.get(v);
                long within = lt.offset.get(v);
                MemoryPlan.Slot s = switch (r.node().kind()) {
                    case PARAM -> new MemoryPlan.Slot(MemoryPlan.Storage.PARAM, r, within, v.shape().byteSize(), view, 0,
                            g.size());
                    case CONSTANT -> new MemoryPlan.Slot(MemoryPlan.Storage.CONSTANTS, r, constantOffset.get(r) + within,
                            v.shape().byteSize(), view, 0, g.size());
                    default -> {
                        Buffer b = ofRoot.get(r);
                        yield new MemoryPlan.Slot(MemoryPlan.Storage.ARENA, r, b.offset + within, v.shape().byteSize(),
                                view, b.birth, b.death);
                    }
                };
                slots.put(v, s);
            }
        }
        Map<Integer, MemoryPlan.Region> regions = new HashMap<>();
        regionBuffers.forEach((id, b) -> regions.put(id, new MemoryPlan.Region(b.offset, b.size, bodyPlans.get(id))));
        return new MemoryPlan(g, slots, arena, constants, unshared, alignment, regions);
    }

    /** An arena buffer being placed: an activation root, or a control-flow region ({@code output} -1). */
    private static final class Buffer {
        final long size;
        final int birth;
        final int death;
        final int node;
        final int output;
        long offset;

        Buffer(long size, int birth, int death, int node, int output) {
            this.size = size;
            this.birth = birth;
            this.death = death;
            this.node = node;
            this.output = output;
        }
    }

    /** Places every buffer, largest first; returns the arena size. */
    private static long place(List<Buffer> buffers, int alignment) {
        List<Buffer> order = new ArrayList<>(buffers);
        order.sort(Comparator.comparingLong((Buffer b) -> -b.size).thenComparingInt(b -> b.birth)
                .thenComparingInt(b -> b.node).thenComparingInt(b -> b.output));
        int lastStep = 0;
        for (Buffer b : buffers) {
            lastStep = Math.max(lastStep, b.death);
        }
        ArenaPlacer placer = new ArenaPlacer(lastStep, alignment);
        long arena = 0;
        for (Buffer b : order) {
            b.offset = placer.place(b.size, b.birth, b.death);
            arena = Math.max(arena, align(b.offset + b.size, alignment));
        }
        return arena;
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

    static long align(long x, int alignment) {
        return (x + alignment - 1) & -(long) alignment;
    }
}
