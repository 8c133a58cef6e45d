package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The planner's safety rules on random graphs: chains, diamonds (a value read by several later nodes),
 * views of views, casts that change element size, multi-output nodes, zero-size and unread values.
 */
class MemoryPlannerPropertiesTest {

    /** Builds a random valid graph from {@code seed}: every choice is made by the builders' own rules. */
    static Graph randomGraph(long seed, int steps) {
        Random r = new Random(seed);
        Graph g = new Graph("random" + seed);
        List<Value> pool = new ArrayList<>();
        int[][] shapes = {{4, 8}, {1, 6, 4}, {8}, {0, 3}, {2, 3, 5}, {1}};
        int sources = 1 + r.nextInt(3);
        for (int i = 0; i < sources; i++) {
            Shape s = Shape.of(r.nextBoolean() ? DType.F32 : DType.F16, shapes[r.nextInt(shapes.length)]);
            pool.add(switch (r.nextInt(3)) {
                case 0 -> g.input("x" + i, s);
                case 1 -> g.param("w" + i, s);
                default -> g.input("in" + i, s);
            });
        }
        if (r.nextBoolean()) {
            pool.add(g.constant(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, 8));
        }
        for (int step = 0; step < steps; step++) {
            // Bias towards recent values (chains) but keep reaching back (diamonds, long lifetimes).
            Value v = r.nextInt(3) == 0 ? pool.get(r.nextInt(pool.size())) : pool.get(pool.size() - 1 - r.nextInt(Math.min(3, pool.size())));
            Shape s = v.shape();
            switch (r.nextInt(9)) {
                case 0 -> pool.add(g.relu(v));
                case 1 -> {
                    List<Value> same = pool.stream().filter(p -> p.shape().equals(s)).toList();
                    pool.add(g.add(v, same.get(r.nextInt(same.size()))));
                }
                case 2 -> pool.add(r.nextBoolean() ? g.reshape(v, (int) s.elementCount()) : g.reshape(v, 1, (int) s.elementCount()));
                case 3 -> {
                    if (s.rank() > 0 && s.dim(0) > 0) {
                        int start = r.nextInt(s.dim(0));
                        pool.add(g.narrow(v, 0, start, r.nextInt(s.dim(0) - start + 1)));
                    } else {
                        pool.add(g.neg(v));
                    }
                }
                case 4 -> {
                    int axis = s.rank() - 1;
                    if (s.rank() > 0 && s.dim(axis) > 0) {
                        int start = r.nextInt(s.dim(axis));
                        pool.add(g.narrow(v, axis, start, 1 + r.nextInt(s.dim(axis) - start)));
                    } else {
                        pool.add(g.exp(v));
                    }
                }
                case 5 -> pool.add(g.cast(v, v.dtype() == DType.F32 ? DType.F16 : DType.F32));
                case 6 -> {
                    if (s.rank() >= 2) {
                        int[] perm = new int[s.rank()];
                        for (int i = 0; i < perm.length; i++) {
                            perm[i] = perm.length - 1 - i;
                        }
                        pool.add(g.transpose(v, perm));
                    } else {
                        pool.add(g.sqrt(v));
                    }
                }
                case 7 -> {
                    if (s.rank() > 0 && s.dim(-1) > 0) {
                        List<Value> tk = g.topK(v, 1 + r.nextInt(s.dim(-1)), -1, true);
                        pool.addAll(tk.subList(0, 1));
                        if (r.nextBoolean()) {
                            pool.add(g.cast(tk.get(1), v.dtype()));
                        }
                    } else {
                        pool.add(g.neg(v));
                    }
                }
                // An empty slice: the IR does not range-check its start, since no element is read.
                default -> pool.add(g.slice(v, 0, r.nextInt(20) - 5, 0, 1));
            }
        }
        Set<Value> outs = new LinkedHashSet<>();
        outs.add(pool.get(pool.size() - 1));
        int extra = r.nextInt(3);
        for (int i = 0; i < extra; i++) {
            outs.add(pool.get(r.nextInt(pool.size())));
        }
        g.setOutputs(new ArrayList<>(outs));
        return g;
    }

    private static Value root(Graph g, Value v) {
        Value cur = v;
        Node n = g.node(cur.nodeId());
        while (n.outputs().size() == 1 && MemoryPlanner.viewOffset(n) >= 0) {
            cur = n.inputs().get(0);
            n = g.node(cur.nodeId());
        }
        return cur;
    }

    @Property(tries = 400)
    void plan_liveBuffersNeverShareBytes(@ForAll long seed, @ForAll @IntRange(min = 1, max = 30) int steps,
                                         @ForAll @IntRange(min = 0, max = 8) int alignLog2) {
        Graph g = randomGraph(seed, steps);
        int alignment = 1 << alignLog2;
        MemoryPlan plan = MemoryPlanner.plan(g, alignment);
        String report = plan.report();

        List<Map.Entry<Value, MemoryPlan.Slot>> buffers = new ArrayList<>();
        long unshared = 0;
        for (Node n : g.nodes()) {
            for (Value v : n.outputs()) {
                MemoryPlan.Slot s = plan.slot(v);
                assertEquals(v.shape().byteSize(), s.bytes(), v + " size");
                long end = switch (s.storage()) {
                    case ARENA -> plan.arenaBytes();
                    case CONSTANTS -> plan.constantBytes();
                    case PARAM -> s.root().shape().byteSize();
                };
                assertTrue(s.offset() >= 0 && s.offset() + s.bytes() <= end,
                        v + " lies outside its " + s.storage() + "\n" + report);
                assertEquals(s.storage() == MemoryPlan.Storage.PARAM, s.root().node().op() instanceof dev.rlx.ir.Op.Param,
                        v + ": params and only params are bound from outside");
                if (!s.view()) {
                    assertEquals(0, s.offset() % alignment, v + " is not aligned\n" + report);
                    if (s.storage() == MemoryPlan.Storage.ARENA) {
                        buffers.add(Map.entry(v, s));
                        unshared += MemoryPlanner.align(s.bytes(), alignment);
                    }
                }
            }
        }
        assertEquals(unshared, plan.unsharedBytes());
        assertTrue(plan.arenaBytes() <= plan.unsharedBytes(), report);

        for (int i = 0; i < buffers.size(); i++) {
            for (int j = i + 1; j < buffers.size(); j++) {
                MemoryPlan.Slot a = buffers.get(i).getValue();
                MemoryPlan.Slot b = buffers.get(j).getValue();
                boolean liveTogether = a.birth() <= b.death() && b.birth() <= a.death();
                boolean share = a.bytes() > 0 && b.bytes() > 0 && a.offset() < b.offset() + b.bytes()
                        && b.offset() < a.offset() + a.bytes();
                assertFalse(liveTogether && share, buffers.get(i).getKey() + " and " + buffers.get(j).getKey()
                        + " are live together and share bytes\n" + report);
            }
        }
    }

    @Property(tries = 400)
    void plan_everyReadHappensWhileTheBufferIsLive(@ForAll long seed, @ForAll @IntRange(min = 1, max = 30) int steps) {
        Graph g = randomGraph(seed, steps);
        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        Map<Value, Value> roots = new HashMap<>();
        for (Node n : g.nodes()) {
            for (Value out : n.outputs()) {
                MemoryPlan.Slot s = plan.slot(out);
                Value root = root(g, out);
                roots.put(out, root);
                MemoryPlan.Slot rs = plan.slot(root);
                assertEquals(root != out, s.view(), out + " view flag");
                // A view lies inside its root's bytes and shares its lifetime.
                assertTrue(s.offset() >= rs.offset() && s.offset() + s.bytes() <= rs.offset() + rs.bytes(),
                        out + " escapes its root " + root);
                assertEquals(rs.birth(), s.birth());
                assertEquals(rs.death(), s.death());
                assertTrue(s.birth() <= n.id(), out + " is written before it is born");
                if (OpKind.SOURCES.contains(n.kind())) {
                    assertEquals(0, s.birth());
                    assertEquals(g.size(), s.death());
                }
            }
            for (Value in : n.inputs()) {
                MemoryPlan.Slot s = plan.slot(in);
                assertTrue(s.birth() <= n.id() && n.id() <= s.death(),
                        n.describe() + " reads " + in + " outside its lifetime [" + s.birth() + "," + s.death() + "]");
            }
        }
        for (Value out : g.outputs()) {
            assertEquals(g.size(), plan.slot(out).death(), "output " + out + " must live to the end");
        }
    }

    @Property(tries = 100)
    void plan_isDeterministic(@ForAll long seed, @ForAll @IntRange(min = 1, max = 25) int steps) {
        MemoryPlan a = MemoryPlanner.plan(randomGraph(seed, steps), 64);
        MemoryPlan b = MemoryPlanner.plan(randomGraph(seed, steps), 64);
        assertEquals(a.report(), b.report());
    }
}
