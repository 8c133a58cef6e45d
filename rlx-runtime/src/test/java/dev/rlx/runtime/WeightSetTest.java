package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.spi.DeviceBuffer;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Weight sets: params bound by reference to one device buffer per weight, shared by every graph compiled against
 * the set and by copies; write-through setting; lifetime; the rejections. On the fake backend, in host and in
 * staged (device-like) memory.
 */
class WeightSetTest {
    private static final Device DEVICE = Device.TPU;
    private FakeBackend fake;

    @AfterEach
    void unregister() {
        BackendRegistry.global().unregister(DEVICE);
    }

    private Session session(boolean staged) {
        fake = FakeBackend.full(DEVICE, staged);
        BackendRegistry.global().register(DEVICE, () -> fake);
        return new Session(DEVICE, CompileOptions.defaults(), null);
    }

    /** {@code x [rows, 3]} and param {@code w f32[3]}: the model at a given batch size. */
    private static Graph model(int rows) {
        Graph g = new Graph("model_" + rows);
        Value x = g.input("x", Shape.of(DType.F32, rows, 3));
        Value w = g.param("w", Shape.of(DType.F32, 3));
        g.setOutputs(g.add(x, w));
        return g;
    }

    private DeviceBuffer boundBuffer(int executable) {
        FakeBackend.FakeExecutable exe = fake.executables.get(executable);
        Value w = exe.graph.param("w");
        MemoryPlan.Slot s = exe.plan.slot(w);
        assertEquals(MemoryPlan.Storage.PARAM, s.storage(), "params are bound, not in the arena");
        return exe.params.get(w);
    }

    private static float[] floats(Tensor t) {
        return t.toFloatArray();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void graphsOfSeveralShapes_shareOneBufferPerWeight(boolean staged) {
        try (Session s = session(staged); WeightSet w = s.newWeightSet("m")) {
            CompiledGraph a = s.compile(model(1), w);
            CompiledGraph b = s.compile(model(5), w);
            assertEquals(List.of("w"), w.names());
            assertEquals(12, w.byteSize(), "one f32[3] weight, counted once");
            assertEquals(2, w.users());
            assertSame(boundBuffer(0), boundBuffer(1), "both executables read the same buffer");
            assertEquals(12, a.weightBytes());
            assertFalse(w.isSet("w"));

            w.set("w", new float[] {1, 2, 3});
            assertTrue(w.isSet("w"));
            assertArrayEquals(new float[] {1, 2, 3}, floats(w.get("w")));
            a.setInput("x", new float[] {0, 0, 0});
            a.run(); // both graphs now see w as set
            b.setInput("x", new float[15]);
            b.run();
            a.close();
            b.close();
            assertEquals(0, w.users());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setParam_writesThroughToEveryGraphOfTheSet(boolean staged) {
        try (Session s = session(staged); WeightSet w = s.newWeightSet("m");
             CompiledGraph a = s.compile(model(1), w); CompiledGraph b = s.compile(model(2), w)) {
            a.setParam("w", new float[] {4, 5, 6});
            assertArrayEquals(new float[] {4, 5, 6}, floats(w.get("w")));
            b.setInput("x", new float[6]);
            b.run(); // would throw "param 'w' has not been set" if b had its own copy
            b.setParam("w", Tensor.of(new double[] {7, 8, 9}, 3));
            assertArrayEquals(new float[] {7, 8, 9}, floats(w.get("w")), "converted from f64 and written once");
            assertEquals(staged ? 2 : 0, fake.runtime.uploads.get(), "device memory is written through its allocator");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void compileWithoutASet_getsAPrivateOneClosedWithTheGraph(boolean staged) {
        try (Session s = session(staged)) {
            CompiledGraph a = s.compile(model(1));
            CompiledGraph b = s.compile(model(1));
            assertNotSame(a.weights(), b.weights(), "each graph compiled alone owns its weights");
            a.setParam("w", new float[] {1, 1, 1});
            assertFalse(b.weights().isSet("w"));
            long held = fake.runtime.allocatedBytes();
            WeightSet own = a.weights();
            a.close();
            assertThrows(IllegalStateException.class, () -> own.set("w", new float[3]), "freed with its graph");
            assertTrue(fake.runtime.allocatedBytes() < held, "the graph's arena and weights are freed");
            b.close();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void copy_sharesTheWeightsAndCopiesTheInputs(boolean staged) {
        try (Session s = session(staged)) {
            CompiledGraph a = s.compile(model(1));
            a.setParam("w", new float[] {1, 2, 3});
            a.setInput("x", new float[] {9, 9, 9});
            CompiledGraph c = a.copy();
            assertSame(a.weights(), c.weights());
            assertEquals(2, a.weights().users());
            assertSame(boundBuffer(0), boundBuffer(1));
            assertEquals(2, fake.compileCalls.get(), "a copy has an executable of its own");
            FakeBackend.FakeExecutable copyExe = fake.executables.get(1);
            assertArrayEquals(new float[] {9, 9, 9},
                    copyExe.slot(copyExe.graph.input("x")).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED), "inputs carried over");
            c.run(); // set: inputs copied, weights shared
            // Closing the original keeps the shared private set alive for the copy.
            a.close();
            c.setParam("w", new float[] {3, 2, 1});
            WeightSet shared = c.weights();
            assertArrayEquals(new float[] {3, 2, 1}, floats(shared.get("w")));
            c.close();
            assertEquals(0, shared.users());
            assertThrows(IllegalStateException.class, () -> shared.set("w", new float[3]), "freed with the last graph");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void closingTheSet_freesOnlyWhenTheLastGraphCloses(boolean staged) {
        try (Session s = session(staged)) {
            WeightSet w = s.newWeightSet("m");
            CompiledGraph a = s.compile(model(1), w);
            w.set("w", new float[] {1, 2, 3});
            w.close();
            assertMentions(assertThrows(BindingException.class, () -> s.compile(model(2), w)), "'m'", "closed");
            assertArrayEquals(new float[] {1, 2, 3}, floats(w.get("w")), "still held: a graph uses it");
            a.setInput("x", new float[3]);
            a.run();
            CompiledGraph c = a.copy(); // copying a graph of a closed set is fine
            a.close();
            c.close();
            assertThrows(IllegalStateException.class, () -> w.set("w", new float[3]));
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void rejections_nameTheWeightAndLeaveTheSetAsItWas(boolean staged) {
        try (Session s = session(staged); WeightSet w = s.newWeightSet("m")) {
            w.declare("w", Shape.of(DType.F32, 4));
            BindingException shape = assertThrows(BindingException.class, () -> s.compile(model(1), w));
            assertMentions(shape, "'w'", "f32[3]", "f32[4]", "'m'");
            assertEquals(0, w.users(), "a rejected compile holds nothing");
            assertMentions(assertThrows(BindingException.class, () -> w.set("nope", new float[1])), "'nope'", "[w]");
            assertMentions(assertThrows(BindingException.class, () -> w.set("w", new float[3])), "'w'", "given 3");
            w.put("b", Tensor.of(new int[] {1, 2}, 2));
            assertEquals(Shape.of(DType.I32, 2), w.shape("b"));
            assertMentions(assertThrows(BindingException.class, () -> w.set("b", new long[] {1L << 40, 0})),
                    "does not fit", "i32");
            assertArrayEquals(new float[] {1, 2}, floats(w.get("b")), "a rejected write changes nothing");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void weightSetOfAnotherDevice_isRejected(boolean staged) {
        try (Session s = session(staged); Session other = new Session(new FakeBackend(Device.ROCM,
                java.util.EnumSet.allOf(dev.rlx.ir.OpKind.class), staged), CompileOptions.defaults(), null);
             WeightSet w = other.newWeightSet("rocm weights")) {
            assertMentions(assertThrows(BindingException.class, () -> s.compile(model(1), w)), "ROCM", "TPU");
        }
    }

    private static void assertMentions(Exception e, String... parts) {
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), e.getMessage() + " lacks " + p);
        }
    }
    /** Memory bound by reference must be native; a heap segment would reach the vector kernels. */
    @org.junit.jupiter.api.Test
    void wrappingAHeapSegmentIsRefused() {
        BindingException e = assertThrows(BindingException.class,
                () -> dev.rlx.runtime.spi.HostRuntime.wrap(java.lang.foreign.MemorySegment.ofArray(new byte[16])));
        assertTrue(e.getMessage().contains("heap segment of 16 bytes"), e.getMessage());
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            assertEquals(16, dev.rlx.runtime.spi.HostRuntime.wrap(a.allocate(16)).byteSize());
        }
    }

}
