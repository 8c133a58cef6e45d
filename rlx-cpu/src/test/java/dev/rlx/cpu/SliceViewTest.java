package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.reference.Ref;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A contiguous slice and a reshape of it are views in the CPU's memory plan: no kernel runs for them, and they
 * read the right rows. (Every movement op's values, in every dtype, are in the conformance suite.)
 */
class SliceViewTest {
    @Test
    void sliceView_ofLeadingAxis_needsNoKernelAndReadsRightRows() {
        Graph g = new Graph("view");
        Value x = g.input("x", Shape.of(DType.F32, 6, 3));
        Value s = g.narrow(x, 0, 2, 3);             // contiguous rows 2..4: a view
        Value y = g.reshape(s, 9);                  // and a view of the view
        g.setOutputs(g.add(y, y), y);
        Ref xv = Ref.random(new Random(1234), -1, 1, 6, 3);
        try (Session ses = new Session(Device.CPU); CompiledGraph c = ses.compile(g)) {
            assertEquals(1, c.kernelCount(), "only the add computes");
            c.setInput("x", xv.floats());
            c.run();
            float[] view = new float[9];
            c.output(1).copyTo(view);
            for (int i = 0; i < 9; i++) {
                assertEquals((float) xv.data()[6 + i], view[i]);
            }
        }
    }
}
