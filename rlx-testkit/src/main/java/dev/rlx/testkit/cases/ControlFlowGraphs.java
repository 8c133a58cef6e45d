package dev.rlx.testkit.cases;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.List;

/** Control-flow graphs the conformance cases and the backends' own tests build alike. */
public final class ControlFlowGraphs {
    private static final Shape F4 = Shape.of(DType.F32, 4);
    private static final Shape SCALAR = Shape.scalar(DType.F32);

    private ControlFlowGraphs() {}

    /**
     * Into {@code g}: {@code while (i < n) { i += 1; acc *= 2 }} from {@code i = 0}, with inputs {@code n} (f32
     * scalar, given at run time) and {@code acc} (f32[4]); outputs {@code (i, acc)}. {@code cap} is the loop's
     * iteration guard (-1: none).
     */
    public static void doublingLoop(Graph g, long cap) {
        Graph cond = new Graph("cond");
        Value ci = cond.input("i", SCALAR);
        Value cn = cond.input("n", SCALAR);
        cond.input("acc", F4);
        cond.setOutputs(cond.lt(ci, cn));
        Graph body = new Graph("body");
        Value bi = body.input("i", SCALAR);
        Value bn = body.input("n", SCALAR);
        Value bacc = body.input("acc", F4);
        body.setOutputs(body.add(bi, body.scalar(1f)), bn, body.mul(bacc, body.scalar(2f)));
        List<Value> out = g.whileLoop(cond, body, cap, g.scalar(0f), g.input("n", SCALAR), g.input("acc", F4));
        g.setOutputs(out.get(0), out.get(2));
    }
}
