package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileCache;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.LoopLimitException;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.SubgraphRunner;
import java.util.List;
import org.junit.jupiter.api.Test;

/** runIf / runWhile: host-driven branches and loops over compiled graphs. */
class SubgraphRunnerTest {
    private static final Shape S = Shape.scalar(DType.F32);

    @Test
    void runIf_runsOnlyTheChosenGraph() {
        Graph plus = new Graph("plus10");
        plus.setOutputs(plus.add(plus.input("x", Shape.of(DType.F32, 2)), plus.scalar(10f)));
        Graph times = new Graph("times2");
        times.setOutputs(times.mul(times.input("x", Shape.of(DType.F32, 2)), times.scalar(2f)));
        CompileCache cache = new CompileCache(4);
        try (Session s = new Session(Device.CPU, CompileOptions.defaults(), cache); SubgraphRunner r = new SubgraphRunner(s)) {
            Tensor x = Tensor.of(new float[] {1, 2}, 2);
            assertArrayEquals(new float[] {11, 12}, r.runIf(true, plus, times, List.of(x)).get(0).toFloatArray());
            assertArrayEquals(new float[] {2, 4}, r.runIf(false, plus, times, List.of(x)).get(0).toFloatArray());
            assertArrayEquals(new float[] {11, 12}, r.runIf(true, plus, times, List.of(x)).get(0).toFloatArray());
            assertEquals(2, cache.misses(), "each branch compiled once and reused");
            assertEquals(0, cache.hits());
        }
    }

    @Test
    void runWhile_loopsUntilTheConditionFails_andGuards() {
        Graph cond = new Graph("below");
        Value ci = cond.input("i", S);
        cond.input("acc", S);
        cond.setOutputs(cond.lt(ci, cond.scalar(6f)));
        Graph body = new Graph("step");
        Value bi = body.input("i", S);
        Value acc = body.input("acc", S);
        body.setOutputs(body.add(bi, body.scalar(1f)), body.add(acc, bi));
        try (Session s = new Session(Device.CPU); SubgraphRunner r = new SubgraphRunner(s)) {
            List<Tensor> out = r.runWhile(cond, body, List.of(Tensor.scalar(0f), Tensor.scalar(0f)), 100);
            assertEquals(6.0, out.get(0).getDouble(0));
            assertEquals(15.0, out.get(1).getDouble(0), "0+1+2+3+4+5");
            assertThrows(LoopLimitException.class,
                    () -> r.runWhile(cond, body, List.of(Tensor.scalar(0f), Tensor.scalar(0f)), 3));
        }
    }
}
