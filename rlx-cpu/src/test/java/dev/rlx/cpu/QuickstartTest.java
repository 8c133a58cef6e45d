package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README quickstart, exactly as a user writes it. */
class QuickstartTest {
    @Test
    void quickstart_matmulGivesFourSix() {
        Graph g = new Graph("hello");
        Value x = g.input("x", Shape.of(DType.F32, 1, 4));
        Value w = g.param("w", Shape.of(DType.F32, 4, 2));
        Value y = g.matmul(x, w, Shape.of(DType.F32, 1, 2));
        g.setOutputs(y);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
            float[] out = c.run(Map.of("x", new float[] {1, 2, 3, 4})).get(0);   // every output, in order
            assertArrayEquals(new float[] {4, 6}, out);

            // the allocation-free form gives the same, and inputs are sticky
            c.setInput("x", new float[] {1, 1, 1, 1});
            c.run();
            float[] dst = new float[2];
            c.output(0).copyTo(dst);
            assertArrayEquals(new float[] {2, 2}, dst);
        }
    }
}
