package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.f32;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * If, While and Scan running their bodies: the branch the data picks, loops that run as often as the data says,
 * scans forward and reversed, nesting both ways. Small integer-valued data keeps every result exact.
 */
final class ControlFlowCases {
    private ControlFlowCases() {}

    private static final Shape F4 = f32(4);
    private static final Shape SCALAR = Shape.scalar(DType.F32);
    private static final Tolerance EXACT = Tolerance.exact("small integers and powers of two are exact in f32");

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        for (boolean p : new boolean[] {true, false}) {
            c.add(OpCase.named("if_takes" + (p ? "Then" : "Else"))
                    .graph(g -> {
                        Graph then = new Graph("then");
                        then.setOutputs(then.mul(then.input("x", F4), then.scalar(2f)));
                        Graph otherwise = new Graph("else");
                        otherwise.setOutputs(otherwise.neg(otherwise.input("x", F4)));
                        g.setOutputs(g.ifElse(g.input("p", Shape.scalar(DType.BOOL)), then, otherwise, g.input("x", F4)));
                    })
                    .data("p", Data.values(p ? 1 : 0))
                    .tolerance(DType.F32, EXACT)
                    .build());
            c.add(OpCase.named("if_nestedLoopRunsOnlyWhenTaken_" + (p ? "taken" : "notTaken"))
                    .graph(ControlFlowCases::loopInBranch)
                    .data("flag", Data.values(p ? 1 : 0))
                    .data("acc", Data.values(3))
                    .tolerance(DType.F32, EXACT)
                    .build());
        }
        for (int n : new int[] {0, 1, 5, 20}) {
            c.add(OpCase.named("while_doublesAsOftenAsTheDataSays_n" + n)
                    .graph(g -> ControlFlowGraphs.doublingLoop(g, -1))
                    .data("n", Data.values(n))
                    .data("acc", Data.values(1, -1, 0.5, 3))
                    .tolerance(DType.F32, EXACT)
                    .build());
        }
        c.add(OpCase.named("while_withinItsGuard")
                .graph(g -> {
                    Graph cond = new Graph("cond");
                    Value ci = cond.input("i", SCALAR);
                    cond.input("acc", f32(3, 5));
                    cond.setOutputs(cond.lt(ci, cond.scalar(4f)));
                    Graph body = new Graph("body");
                    Value i = body.input("i", SCALAR);
                    Value acc = body.input("acc", f32(3, 5));
                    body.setOutputs(body.add(i, body.scalar(1f)), body.add(body.mul(acc, acc), body.scalar(-1f)));
                    g.setOutputs(g.whileLoop(cond, body, 4, g.scalar(0f), g.input("acc", f32(3, 5))));
                })
                .data("acc", Data.uniform(-1, 1))
                .tolerance(DType.F32, Tolerance.of(1e-6, 1e-5, "four rounds of x*x - 1 in f32"))
                .build());
        c.add(OpCase.named("while_ifInsideItsBody")
                .graph(ControlFlowCases::branchInLoop)
                .data("acc", Data.values(1))
                .tolerance(DType.F32, EXACT)
                .build());
        // carry' = carry * x_t, y_t = carry': the running product of the rows of xs
        c.add(OpCase.named("scan_cumulativeProduct")
                .graph(g -> {
                    Graph body = new Graph("prod");
                    Value next = body.mul(body.input("carry", F4), body.input("x", F4));
                    body.setOutputs(next, next);
                    g.setOutputs(g.scan(body, 5, 1, false, g.input("one", F4), g.input("xs", f32(5, 4))));
                })
                .data("one", Data.values(1, 1, 1, 1))
                .data("xs", Data.uniform(0.5, 1.5))
                .tolerance(DType.F32, Tolerance.of(0, 1e-6, "five f32 products"))
                .build());
        for (boolean reverse : new boolean[] {false, true}) {
            c.add(OpCase.named("scan_runningSum" + (reverse ? "_reverse" : ""))
                    .graph(g -> g.setOutputs(runningSum(g, reverse)))
                    .data("init", Data.values(0.5, 0.5, 0.5, 0.5))
                    .data("xs", Data.values(1, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400))
                    .tolerance(DType.F32, EXACT)
                    .build());
        }
        c.add(OpCase.named("scan_twoCarriesTwoXsF64_length7")
                .graph(g -> {
                    Graph body = new Graph("step");
                    Value a = body.input("a", Shape.of(DType.F64, 3));
                    Value b = body.input("b", Shape.scalar(DType.F64));
                    Value x = body.input("x", Shape.of(DType.F64, 3));
                    Value y = body.input("y", Shape.of(DType.F64, 2));
                    Value na = body.add(body.mul(a, x), b);
                    body.setOutputs(na, body.reduceSum(y, false), body.reduceMax(na, false), body.mul(y, b));
                    g.setOutputs(g.scan(body, 7, 2, true, g.input("a", Shape.of(DType.F64, 3)),
                            g.input("b", Shape.scalar(DType.F64)), g.input("xs", Shape.of(DType.F64, 7, 3)),
                            g.input("ys", Shape.of(DType.F64, 7, 2))));
                })
                .build());
        c.add(OpCase.named("scan_lengthZeroKeepsCarries")
                .graph(g -> {
                    Graph body = new Graph("step");
                    Value next = body.add(body.input("c", F4), body.input("x", F4));
                    body.setOutputs(next, next);
                    g.setOutputs(g.scan(body, 0, 1, false, g.input("c", F4), g.input("xs", f32(0, 4))));
                })
                .tolerance(DType.F32, EXACT)
                .build());
        return new OpFamily("controlFlow", c);
    }


    /** if (flag) { while (i < 4) { i++; acc *= 2 } } else { acc - 1 }. */
    private static void loopInBranch(Graph g) {
        Graph cond = new Graph("cond");
        cond.setOutputs(cond.lt(cond.input("i", SCALAR), cond.scalar(4f)));
        cond.input("acc", SCALAR);
        Graph body = new Graph("body");
        Value bi = body.input("i", SCALAR);
        Value bacc = body.input("acc", SCALAR);
        body.setOutputs(body.add(bi, body.scalar(1f)), body.mul(bacc, body.scalar(2f)));
        Graph then = new Graph("then");
        Value ta = then.input("acc", SCALAR);
        then.setOutputs(then.whileLoop(cond, body, 100, then.scalar(0f), ta).get(1));
        Graph otherwise = new Graph("else");
        otherwise.setOutputs(otherwise.sub(otherwise.input("acc", SCALAR), otherwise.scalar(1f)));
        g.setOutputs(g.ifElse(g.input("flag", Shape.scalar(DType.BOOL)), then, otherwise, g.input("acc", SCALAR)).get(0));
    }

    /** i += 1; acc = (i odd) ? acc + 1 : acc * 3, five times: 1 -> 2 -> 6 -> 7 -> 21 -> 22. */
    private static void branchInLoop(Graph g) {
        Graph odd = new Graph("odd");
        odd.setOutputs(odd.add(odd.input("a", SCALAR), odd.scalar(1f)));
        Graph even = new Graph("even");
        even.setOutputs(even.mul(even.input("a", SCALAR), even.scalar(3f)));
        Graph body = new Graph("body");
        Value i = body.input("i", SCALAR);
        Value acc = body.input("acc", SCALAR);
        Value ni = body.add(i, body.scalar(1f));
        Value isOdd = body.eq(body.mod(ni, body.scalar(2f)), body.scalar(1f));
        body.setOutputs(ni, body.ifElse(isOdd, odd, even, acc).get(0));
        Graph cond = new Graph("cond");
        Value ci = cond.input("i", SCALAR);
        cond.input("acc", SCALAR);
        cond.setOutputs(cond.lt(ci, cond.scalar(5f)));
        g.setOutputs(g.whileLoop(cond, body, -1, g.scalar(0f), g.input("acc", SCALAR)).get(1));
    }

    /** carry' = carry + x_t; y_t = carry' * 10, over 3 steps of 4 lanes. */
    private static List<Value> runningSum(Graph g, boolean reverse) {
        Graph body = new Graph("step");
        Value next = body.add(body.input("carry", F4), body.input("x", F4));
        body.setOutputs(next, body.mul(next, body.scalar(10f)));
        return g.scan(body, 3, 1, reverse, g.input("init", F4), g.input("xs", f32(3, 4)));
    }
}
