package dev.rlx.runtime.streams;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.models.LlamaBlock;
import dev.rlx.runtime.BindingException;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PipelinedGraphTest {
    /** y = x * w + 1 on [3]. */
    private static CompiledGraph affine(Session s) {
        Graph g = new Graph("affine");
        Value x = g.input("x", Shape.of(DType.F32, 3));
        Value w = g.param("w", Shape.of(DType.F32, 3));
        g.setOutputs(g.add(g.mul(x, w), g.scalar(1f)));
        CompiledGraph c = s.compile(g);
        c.setParam("w", new float[] {2, -1, 0.5f});
        return c;
    }

    @Test
    void runPipelined_givesEachRunItsOwnOutputs_equalToSequentialRuns() {
        try (Session s = new Session(Device.CPU); CompiledGraph c = affine(s); PipelinedGraph p = new PipelinedGraph(c)) {
            List<Map<String, float[]>> inputs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                inputs.add(Map.of("x", new float[] {i, i + 0.5f, -i}));
            }
            List<List<float[]>> got = p.runPipelined(inputs);
            assertEquals(8, got.size());
            for (int i = 0; i < 8; i++) {
                float[] x = inputs.get(i).get("x");
                assertArrayEquals(new float[] {x[0] * 2 + 1, -x[1] + 1, x[2] * 0.5f + 1}, got.get(i).get(0), "run " + i);
            }
            assertFalse(got.get(0).get(0) == got.get(1).get(0), "outputs are snapshots, not the graph's one view");
        }
    }

    @Test
    void commitNoWait_snapshotsTheInputs_andSyncPendingReturnsInOrder() {
        try (Session s = new Session(Device.CPU); CompiledGraph c = affine(s); PipelinedGraph p = new PipelinedGraph(c)) {
            float[] x = {1, 2, 3};
            p.commitNoWait(Map.of("x", x));
            x[0] = 100; // the caller reuses its buffer for the next input at once
            p.commitNoWait(Map.of("x", x));
            List<List<float[]>> got = p.syncPending();
            assertArrayEquals(new float[] {3, -1, 2.5f}, got.get(0).get(0));
            assertArrayEquals(new float[] {201, -1, 2.5f}, got.get(1).get(0));
            assertTrue(p.syncPending().isEmpty());
        }
    }

    @Test
    void runAsync_completesWithTheOutputs_andBadInputsFailOnTheCallersThread() throws Exception {
        try (Session s = new Session(Device.CPU); CompiledGraph c = affine(s); PipelinedGraph p = new PipelinedGraph(c)) {
            assertArrayEquals(new float[] {3, -1, 2.5f}, p.runAsync(Map.of("x", new float[] {1, 2, 3})).get(10, TimeUnit.SECONDS).get(0));
            BindingException wrongLength = assertThrows(BindingException.class, () -> p.commitNoWait(Map.of("x", new float[2])));
            assertTrue(wrongLength.getMessage().contains("'x'") && wrongLength.getMessage().contains("2 were given"),
                    wrongLength.getMessage());
            assertThrows(BindingException.class, () -> p.runAsync(Map.of("y", new float[3])));
            assertTrue(p.syncPending().isEmpty(), "a rejected commit queues nothing");
        }
    }

    /** The decoder block through the pipeline equals plain runs, bit for bit (same kernels, same order). */
    @Test
    void decoderBlock_pipelinedEqualsPlainRuns() {
        LlamaBlock b = new LlamaBlock(1, 6, 32, 4, 2, 8, 48, 1e-5f, 10_000);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(b.build());
             CompiledGraph plain = s.compile(b.build())) {
            for (Map.Entry<String, Tensor> e : b.randomWeights(5).entrySet()) {
                c.setParam(e.getKey(), e.getValue());
                plain.setParam(e.getKey(), e.getValue());
            }
            List<Map<String, float[]>> inputs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                inputs.add(Map.of("x", b.randomInput(100 + i).toFloatArray()));
            }
            List<List<float[]>> got;
            try (PipelinedGraph p = new PipelinedGraph(c)) {
                got = p.runPipelined(inputs);
            }
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(plain.run(inputs.get(i)).get(0), got.get(i).get(0), "run " + i);
            }
        }
    }

    @Test
    void asyncStream_submitReturnsAtOnce_awaitJoins_inOrder_andReportsFailures() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        try (AsyncCommandStream stream = new AsyncCommandStream("test-stream")) {
            stream.enqueue(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                order.add(1);
            });
            stream.enqueue(() -> order.add(2));
            stream.submit(); // returns although the first work item is blocked
            assertTrue(stream.pending());
            assertTrue(order.isEmpty());
            release.countDown();
            stream.await();
            assertEquals(List.of(1, 2), order);
            assertFalse(stream.pending());
            AtomicInteger after = new AtomicInteger();
            stream.enqueue(() -> {
                throw new IllegalStateException("kernel fault");
            });
            stream.enqueue(after::incrementAndGet);
            stream.submit();
            StreamException e = assertThrows(StreamException.class, stream::await);
            assertTrue(e.getMessage().contains("kernel fault"), e.getMessage());
            assertEquals(1, after.get(), "work after a failure still runs");
        }
    }
}
