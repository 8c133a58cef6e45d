package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MemoryPlannerTest {
    private static Shape f32(int... dims) {
        return Shape.of(DType.F32, dims);
    }

    private static boolean bytesOverlap(MemoryPlan.Slot a, MemoryPlan.Slot b) {
        return a.bytes() > 0 && b.bytes() > 0 && a.offset() < b.offset() + b.bytes() && b.offset() < a.offset() + a.bytes();
    }

    @Test
    void plan_twoChainedMatmuls100x384_reuseMemoryDownToPeakLiveBytes() {
        Graph g = new Graph("mlp");
        Value x = g.input("x", f32(100, 384));
        Value w1 = g.param("w1", f32(384, 384));
        Value w2 = g.param("w2", f32(384, 384));
        Value h1 = g.matmul(x, w1);
        Value h2 = g.relu(h1);
        Value h3 = g.matmul(h2, w2);
        Value out = g.relu(h3);
        g.setOutputs(out);

        MemoryPlan plan = MemoryPlanner.plan(g, 64);

        long act = 100L * 384 * 4;
        long weight = 384L * 384 * 4;
        // Params are bound from outside: none of their bytes is in the arena.
        assertEquals(MemoryPlan.Storage.PARAM, plan.slot(w1).storage());
        assertEquals(w2, plan.slot(w2).root());
        assertEquals(2 * weight, plan.paramBytes());
        assertEquals(5 * act, plan.unsharedBytes());
        assertTrue(plan.arenaBytes() < plan.unsharedBytes(), plan.report());
        // At the second matmul x, h2 and h3 are all live: that peak is the least any plan can use, and
        // largest-first placement reaches it on this chain.
        assertEquals(3 * act, plan.arenaBytes(), plan.report());
        assertEquals(plan.unsharedBytes() - plan.arenaBytes(), plan.savedBytes());
        // h1 is dead once relu has read it, so h3 takes its bytes.
        assertEquals(plan.slot(h1).offset(), plan.slot(h3).offset(), plan.report());
        assertFalse(bytesOverlap(plan.slot(h1), plan.slot(h2)), plan.report());
        assertFalse(bytesOverlap(plan.slot(h2), plan.slot(h3)), plan.report());
    }

    @Test
    void plan_sourcesAndOutputs_liveTheWholeRun() {
        Graph g = new Graph("whole");
        Value x = g.input("x", f32(4, 4));
        Value unused = g.input("unused", f32(4));
        Value w = g.param("w", f32(4, 4));
        Value c = g.constant(new float[] {1, 2, 3, 4}, 4);
        Value h = g.matmul(x, w);
        Value y = g.add(g.relu(h), c);
        Value early = g.neg(x); // an output computed early must survive later nodes
        Value z = g.relu(y);
        g.setOutputs(early, z);

        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        int n = g.size();
        for (Value v : List.of(x, unused, w, c)) {
            assertEquals(0, plan.slot(v).birth(), v + " birth");
            assertEquals(n, plan.slot(v).death(), v + " death");
        }
        for (Value v : List.of(early, z)) {
            assertEquals(v.nodeId(), plan.slot(v).birth(), v + " birth");
            assertEquals(n, plan.slot(v).death(), v + " death");
        }
        // An intermediate lives from its writer to its last reader.
        assertEquals(h.nodeId(), plan.slot(h).birth());
        assertEquals(h.nodeId() + 1, plan.slot(h).death());
        // The early output may not share bytes with anything computed after it.
        for (Value v : List.of(h, y, z)) {
            assertFalse(bytesOverlap(plan.slot(early), plan.slot(v)), plan.report());
        }
    }

    @Test
    void plan_reshape_isViewAtSourceOffset() {
        Graph g = new Graph("view");
        Value x = g.input("x", f32(2, 6));
        Value h = g.relu(x);
        Value r = g.reshape(h, 3, 4);
        Value y = g.neg(r);
        g.setOutputs(y);

        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        MemoryPlan.Slot hs = plan.slot(h);
        MemoryPlan.Slot rs = plan.slot(r);
        assertTrue(rs.view());
        assertFalse(hs.view());
        assertEquals(hs.offset(), rs.offset());
        assertEquals(48, rs.bytes());
        // The root lives as long as its view is read.
        assertEquals(y.nodeId(), hs.death());
        assertEquals(hs.birth(), rs.birth());
        assertEquals(hs.death(), rs.death());
        assertFalse(bytesOverlap(hs, plan.slot(y)), plan.report());
        assertEquals(0, MemoryPlanner.viewOffset(g.node(r.nodeId())));
    }

    @Test
    void plan_contiguousSlice_isViewAtByteOffset() {
        Graph g = new Graph("slice");
        Value x = g.input("x", f32(1, 6, 4));
        Value h = g.relu(x);
        Value s = g.narrow(h, 1, 2, 3);      // rows 2..4 of the single batch: contiguous
        Value s2 = g.narrow(s, 2, 1, 2);     // not contiguous: leading dims are 1 and 3
        Value r = g.reshape(s, 12);
        Value s3 = g.narrow(r, 0, 5, 4);     // a slice of a view of a slice: offsets add up
        g.setOutputs(g.neg(s2), g.neg(s3));

        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        long base = plan.slot(h).offset();
        assertTrue(plan.slot(s).view());
        assertEquals(base + 2 * 4 * 4, plan.slot(s).offset());
        assertEquals(3 * 4 * 4, plan.slot(s).bytes());
        assertEquals(2 * 4 * 4, MemoryPlanner.viewOffset(g.node(s.nodeId())));

        assertFalse(plan.slot(s2).view(), "a slice with a leading dim > 1 is not one contiguous run");
        assertEquals(-1, MemoryPlanner.viewOffset(g.node(s2.nodeId())));

        assertTrue(plan.slot(s3).view());
        assertEquals(base + 2 * 4 * 4 + 5 * 4, plan.slot(s3).offset());
        assertEquals(16, plan.slot(s3).bytes());
    }

    @Test
    void viewOffset_stridedSlice_isNotAView() {
        Graph g = new Graph("strided");
        Value x = g.input("x", f32(8));
        Value s = g.slice(x, 0, 1, 3, 2);
        Value t = g.transpose(g.reshape(x, 2, 4), 1, 0);
        g.setOutputs(s, t);
        assertEquals(-1, MemoryPlanner.viewOffset(g.node(s.nodeId())));
        assertEquals(-1, MemoryPlanner.viewOffset(g.node(t.nodeId())));
        MemoryPlan plan = MemoryPlanner.plan(g, 16);
        assertFalse(plan.slot(s).view());
        assertFalse(plan.slot(t).view());
    }

    @Test
    void plan_viewThatIsAnOutput_keepsItsRootAliveToTheEnd() {
        Graph g = new Graph("viewout");
        Value x = g.input("x", f32(64));
        Value h = g.relu(x);
        Value r = g.reshape(h, 8, 8);            // output: aliases h
        Value a = g.neg(x);                        // later intermediates that could reuse h's bytes
        Value b = g.relu(a);
        Value c = g.neg(b);
        g.setOutputs(r, c);

        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        assertTrue(plan.slot(r).view());
        assertEquals(g.size(), plan.slot(h).death(), "the root of an output view must live to the end");
        assertEquals(g.size(), plan.slot(r).death());
        for (Value v : List.of(a, b, c)) {
            assertFalse(bytesOverlap(plan.slot(h), plan.slot(v)), "%s clobbers the output view's root\n"
                    .formatted(v) + plan.report());
        }
    }

    @Test
    void plan_zeroSizeTensors_takeNoBytesAndStayInsideTheArena() {
        Graph g = new Graph("empty");
        Value x = g.input("x", f32(0, 4));
        Value y = g.relu(x);
        Value z = g.reshape(y, 4, 0);
        Value big = g.input("big", f32(16));
        g.setOutputs(z, g.neg(big));

        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        for (Value v : List.of(x, y, z)) {
            assertEquals(0, plan.slot(v).bytes());
            assertTrue(plan.slot(v).offset() >= 0 && plan.slot(v).offset() <= plan.arenaBytes(), plan.report());
        }
        assertEquals(128, plan.arenaBytes(), plan.report());
        assertEquals(128, plan.unsharedBytes());
    }

    @Test
    void plan_emptySliceWithStartPastTheAxis_staysInsideTheArena() {
        // A zero-length slice's start is not range-checked by the IR (no element is read), so the planner
        // must not turn it into a view offset past (or before) its source.
        Graph g = new Graph("emptyslice");
        Value x = g.input("x", f32(4, 3));
        Value past = g.slice(x, 0, 9, 0, 1);
        Value before = g.slice(x, 0, -7, 0, 1);
        g.setOutputs(past, before);

        MemoryPlan plan = MemoryPlanner.plan(g, 16);
        for (Value v : List.of(past, before)) {
            MemoryPlan.Slot s = plan.slot(v);
            assertEquals(0, s.bytes());
            assertTrue(s.offset() >= 0 && s.offset() + s.bytes() <= plan.arenaBytes(),
                    v + " at " + s.offset() + " is outside the arena\n" + plan.report());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, -64, 3, 6, 48, 100})
    void plan_alignmentNotAPowerOfTwo_isRejected(int alignment) {
        Graph g = new Graph("a");
        g.setOutputs(g.relu(g.input("x", f32(3))));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MemoryPlanner.plan(g, alignment));
        assertTrue(e.getMessage().contains(String.valueOf(alignment)), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 8, 64, 128, 4096})
    void plan_powerOfTwoAlignment_alignsEveryBuffer(int alignment) {
        Graph g = new Graph("a");
        Value x = g.input("x", f32(3));
        Value y = g.input("y", Shape.of(DType.I8, 5));
        g.setOutputs(g.relu(x), g.neg(y), g.exp(x));
        MemoryPlan plan = MemoryPlanner.plan(g, alignment);
        assertEquals(alignment, plan.alignment());
        for (MemoryPlan.Slot s : plan.slots().values()) {
            assertEquals(0, s.offset() % alignment, plan.report());
        }
        assertEquals(0, plan.arenaBytes() % alignment);
    }

    @Test
    void report_listsEveryBufferAndTheTotals() {
        Graph g = new Graph("rep");
        Value x = g.input("x", f32(4, 4));
        Value h = g.relu(x);
        Value r = g.reshape(h, 16);
        Value a = g.neg(r);
        Value b = g.exp(a);
        Value c = g.relu(b);
        g.setOutputs(c);
        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        String report = plan.report();
        assertTrue(report.contains("arena " + plan.arenaBytes() + " bytes, " + plan.unsharedBytes() + " without reuse"),
                report);
        assertTrue(plan.savedBytes() > 0, report);
        assertTrue(report.contains("% saved"), report);
        assertEquals(g.size() + 1, report.lines().count(), report);
        assertTrue(report.lines().anyMatch(l -> l.contains(" view ") && l.contains(r.toString())), report);
        assertTrue(report.contains("f32[4,4]"), report);
    }

    @Test
    void slot_ofValueFromAnotherGraph_namesTheGraph() {
        Graph g = new Graph("mine");
        g.setOutputs(g.relu(g.input("x", f32(2))));
        Graph other = new Graph("other");
        Value foreign = other.input("z", f32(2));
        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> plan.slot(foreign));
        assertTrue(e.getMessage().contains("@mine"), e.getMessage());
    }

    @Test
    void plan_multiOutputNode_givesEachOutputItsOwnBytes() {
        Graph g = new Graph("topk");
        Value x = g.input("x", f32(4, 8));
        List<Value> tk = g.topK(g.relu(x), 3, -1, true);
        g.setOutputs(g.neg(tk.get(0)), tk.get(1));
        MemoryPlan plan = MemoryPlanner.plan(g, 8);
        assertFalse(bytesOverlap(plan.slot(tk.get(0)), plan.slot(tk.get(1))), plan.report());
        assertEquals(4 * 3 * 8, plan.slot(tk.get(1)).bytes());
    }
}
