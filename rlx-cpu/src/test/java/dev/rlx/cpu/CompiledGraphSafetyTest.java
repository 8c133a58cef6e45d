package dev.rlx.cpu;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Attrs;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import dev.rlx.runtime.BindingException;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.ConcurrentUseException;
import dev.rlx.runtime.CustomOpException;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.OpRegistry;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Limits checked before allocating, typed errors for null data, concurrent use detected, dropped graphs freed. */
class CompiledGraphSafetyTest {
    private static Graph reluOf(String name, Shape s) {
        Graph g = new Graph(name);
        g.setOutputs(g.relu(g.input("x", s)));
        return g;
    }

    @AfterEach
    void cleanUp() {
        OpRegistry.global().remove("block_until_released");
        OpRegistry.global().remove("null_shapes");
    }

    @Test
    void compile_arenaOfTerabytes_isRefusedBeforeAllocating() {
        Graph g = reluOf("huge", Shape.of(DType.F32, 1 << 20, 1 << 20)); // a 2^40-element input: 4 TiB
        try (Session s = new Session(Device.CPU, CompileOptions.defaults(), null)) {
            long before = s.runtime().allocator().allocatedBytes();
            LimitExceededException e = assertThrows(LimitExceededException.class, () -> s.compile(g));
            assertEquals(Limits.Kind.ARENA_BYTES, e.kind());
            assertTrue(e.asked() >= 8L << 40, e.getMessage()); // input and output: 4 TiB each
            assertTrue(e.getMessage().contains("@huge"), e.getMessage());
            assertEquals(before, s.runtime().allocator().allocatedBytes(), "nothing may be allocated");
        }
    }

    @Test
    void compile_limitsFromOptions_boundArenaInputsAndWeights() {
        Graph g = new Graph("small");
        Value x = g.input("x", Shape.of(DType.F32, 8, 32));
        Value w = g.param("w", Shape.of(DType.F32, 32, 32));
        g.setOutputs(g.relu(g.matmul(x, w)));
        try (Session s = new Session(Device.CPU, CompileOptions.defaults(), null)) {
            long before = s.runtime().allocator().allocatedBytes();
            Limits base = Limits.defaults();
            var arena = assertThrows(LimitExceededException.class,
                    () -> s.compile(g, CompileOptions.defaults().withLimits(base.toBuilder().arenaBytes(1000).build())));
            assertEquals(Limits.Kind.ARENA_BYTES, arena.kind());
            assertEquals(1000, arena.limit());
            var input = assertThrows(LimitExceededException.class,
                    () -> s.compile(g, CompileOptions.defaults().withLimits(base.toBuilder().tensorBytes(512).build())));
            assertEquals(Limits.Kind.TENSOR_BYTES, input.kind());
            assertEquals(8 * 32 * 4, input.asked());
            assertTrue(input.getMessage().contains("input 'x'"), input.getMessage());
            var weights = assertThrows(LimitExceededException.class,
                    () -> s.compile(g, CompileOptions.defaults().withLimits(base.toBuilder().weightBytes(4095).build())));
            assertEquals(Limits.Kind.WEIGHT_BYTES, weights.kind());
            assertEquals(32 * 32 * 4, weights.asked());
            assertEquals(before, s.runtime().allocator().allocatedBytes(), "refused compiles allocate nothing");
            // Within the limits the same graph compiles.
            try (CompiledGraph c = s.compile(g, CompileOptions.defaults().withLimits(base.toBuilder()
                    .arenaBytes(1 << 20).tensorBytes(1024).weightBytes(4096).build()))) {
                assertEquals(List.of("x"), c.inputNames());
            }
        }
    }

    @Test
    void weightSet_declarationOverItsLimit_isRefusedAndLeavesTheSetUnchanged() {
        CompileOptions o = CompileOptions.defaults().withLimits(Limits.defaults().toBuilder().weightBytes(1000).build());
        try (Session s = new Session(Device.CPU, o, null); WeightSet ws = s.newWeightSet("w")) {
            ws.declare("a", Shape.of(DType.F32, 200)); // 800 bytes
            var e = assertThrows(LimitExceededException.class, () -> ws.declare("b", Shape.of(DType.F32, 100)));
            assertTrue(e.getMessage().contains("'b'") && e.getMessage().contains("800"), e.getMessage());
            assertThrows(LimitExceededException.class,
                    () -> ws.declare("c", Shape.of(DType.F32, 1 << 20, 1 << 20))); // 4 TiB
            assertEquals(List.of("a"), ws.names());
        }
    }

    @Test
    void setInput_null_isABindingErrorNamingTheInput() {
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(reluOf("n", Shape.of(DType.F32, 3)))) {
            for (Runnable call : List.<Runnable>of(() -> c.setInput("x", (float[]) null),
                    () -> c.setInput("x", (int[]) null), () -> c.setInput("x", (MemorySegment) null),
                    () -> c.setInput("x", (Tensor) null), () -> c.run((Map<String, float[]>) null),
                    () -> c.runSlots(new float[][] {null}, null))) {
                BindingException e = assertThrows(BindingException.class, call::run);
                assertTrue(e.getMessage().contains("null"), e.getMessage());
            }
            assertTrue(assertThrows(BindingException.class, () -> c.setInput("x", (float[]) null)).getMessage()
                    .contains("input 'x'"));
            c.setInput("x", new float[] {-1, 2, -3});
            c.run();
            assertArrayEquals(new float[] {0, 2, 0}, c.output(0).toFloatArray());
        }
    }

    @Test
    void customOp_shapeFunctionReturningNull_isACustomOpError() {
        OpRegistry.global().define("null_shapes", (in, a) -> null);
        Graph g = new Graph("c");
        Value x = g.input("x", Shape.of(DType.F32, 2));
        CustomOpException e = assertThrows(CustomOpException.class,
                () -> OpRegistry.global().apply(g, "null_shapes", Attrs.EMPTY, x));
        assertEquals("null_shapes", e.opName());
        OpRegistry.global().define("null_shapes", (in, a) -> java.util.Arrays.asList((Shape) null));
        assertThrows(CustomOpException.class, () -> OpRegistry.global().apply(g, "null_shapes", Attrs.EMPTY, x));
        assertThrows(CustomOpException.class, () -> OpRegistry.global().apply(g, "never_defined", Attrs.EMPTY, x));
        assertEquals(1, g.size(), "nothing added to the graph");
    }

    @Test
    void run_whileAnotherThreadRuns_isRefusedAndLeavesThatRunIntact() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OpRegistry.global().register("block_until_released", (in, a) -> List.of(in.get(0)), Device.CPU,
                (in, out, a) -> {
                    entered.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    for (long i = 0; i < in.get(0).size(); i++) {
                        out.get(0).data().setAtIndex(JAVA_FLOAT, i, in.get(0).data().getAtIndex(JAVA_FLOAT, i) + 1);
                    }
                });
        Graph g = new Graph("blocking");
        Value x = g.input("x", Shape.of(DType.F32, 4));
        g.setOutputs(OpRegistry.global().apply(g, "block_until_released", Attrs.EMPTY, x).get(0));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("x", new float[] {1, 2, 3, 4});
            AtomicReference<Throwable> failed = new AtomicReference<>();
            AtomicReference<float[]> got = new AtomicReference<>();
            Thread runner = new Thread(() -> {
                try {
                    got.set(c.run(Map.of()).get(0));
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            runner.start();
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            assertThrows(ConcurrentUseException.class, c::run);
            assertThrows(ConcurrentUseException.class, () -> c.run(Map.of("x", new float[4])));
            assertThrows(ConcurrentUseException.class, () -> c.setInput("x", new float[] {9, 9, 9, 9}));
            assertThrows(ConcurrentUseException.class, () -> c.output(0).toFloatArray());
            assertThrows(ConcurrentUseException.class, c::close);
            release.countDown();
            runner.join(30_000);
            assertEquals(null, failed.get());
            assertArrayEquals(new float[] {2, 3, 4, 5}, got.get(), "the refused calls changed nothing");
            c.run(); // free again
            assertArrayEquals(new float[] {2, 3, 4, 5}, c.output(0).toFloatArray());
        }
    }

    @Test
    void droppedGraphs_areFreedOnceUnreachable() throws Exception {
        try (Session s = new Session(Device.CPU, CompileOptions.defaults(), null)) {
            long before = s.runtime().allocator().allocatedBytes();
            Graph g = reluOf("dropped", Shape.of(DType.F32, 256, 256));
            List<CompiledGraph> held = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) {
                CompiledGraph c = s.compile(g); // never closed
                c.setInput("x", new float[256 * 256]);
                c.run();
                held.add(c);
            }
            assertTrue(s.runtime().allocator().allocatedBytes() - before >= 40 * held.get(0).arenaBytes(),
                    "the graphs hold their arenas");
            held.clear(); // dropped without close()
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (s.runtime().allocator().allocatedBytes() > before && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(20);
            }
            assertEquals(before, s.runtime().allocator().allocatedBytes(), "every dropped graph's arena freed");
        }
    }
}
