package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.kernels.IndexOutOfRangeException;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import org.junit.jupiter.api.Test;

/**
 * Gather and scatter-add with an index outside {@code [-n, n)}: the CPU kernels throw
 * {@link IndexOutOfRangeException} naming the node, the index, its position and the range, also from a worker
 * thread, and the compiled graph runs again once the index is fixed. (Their values are in the conformance suite.)
 */
class IndexOutOfRangeTest {

    @Test
    void gather_outOfRangeThrowsNamingNodeAndIndex() {
        Graph g = new Graph("gather");
        Value d = g.input("data", Shape.of(DType.F32, 5, 4));
        Value i = g.input("idx", Shape.of(DType.I64, 2, 3));
        g.setOutputs(g.name(g.gather(d, i, 0), "lookup"));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("data", new float[20]);
            c.setInput("idx", new long[] {0, 1, 2, 4, 5, 3}); // 5 at position [1, 1] is one past the end
            IndexOutOfRangeException e = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(e.getMessage().contains("gather 'lookup'"), e.getMessage());
            assertTrue(e.getMessage().contains("index 5 at [1, 1]"), e.getMessage());
            assertTrue(e.getMessage().contains("-5 <= index < 5"), e.getMessage());
            c.setInput("idx", new long[] {0, 1, 2, 4, -6, 3});
            IndexOutOfRangeException neg = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(neg.getMessage().contains("index -6 at [1, 1]"), neg.getMessage());
            // a corrected index runs again
            c.setInput("idx", new long[] {0, 1, 2, 4, -5, 3});
            c.run();
        }
    }

    /** The bad index lies in the half a worker thread takes: its exception still reaches the caller. */
    @Test
    void gather_outOfRangeOnWorkerThreadThrows() {
        Graph g = new Graph("gather");
        Value d = g.input("data", Shape.of(DType.F32, 4096, 64));
        Value i = g.input("idx", Shape.of(DType.I32, 4096));
        g.setOutputs(g.gather(d, i, 0));
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(2));
             CompiledGraph c = s.compile(g)) {
            c.setInput("data", new float[4096 * 64]);
            int[] idx = new int[4096];
            idx[4000] = 4096;
            c.setInput("idx", idx);
            IndexOutOfRangeException e = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(e.getMessage().contains("index 4096 at [4000]"), e.getMessage());
            idx[4000] = -4096;
            c.setInput("idx", idx);
            c.run(); // the pool is fine afterwards
        }
    }

    @Test
    void scatterAdd_outOfRangeThrows() {
        Graph g = new Graph("scatter");
        Value d = g.input("data", Shape.of(DType.F32, 3, 2));
        Value i = g.input("idx", Shape.of(DType.I32, 2, 2));
        Value u = g.input("upd", Shape.of(DType.F32, 2, 2));
        g.setOutputs(g.name(g.scatterAdd(d, i, u, 0), "acc"));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("data", new float[6]);
            c.setInput("upd", new float[4]);
            c.setInput("idx", new int[] {0, 2, 3, 1});
            IndexOutOfRangeException e = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(e.getMessage().contains("scatter_add 'acc'"), e.getMessage());
            assertTrue(e.getMessage().contains("index 3 at [1, 0]"), e.getMessage());
            assertTrue(e.getMessage().contains("-3 <= index < 3"), e.getMessage());
        }
    }
}
