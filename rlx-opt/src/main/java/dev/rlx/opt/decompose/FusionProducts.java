package dev.rlx.opt.decompose;

import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.opt.Rewriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The fusion passes' products back in the ops they were made from: a {@link Op.Fused} program as one
 * element-wise node per step, a {@link Op.FusedMatMul} as its matmul then the epilogue's steps, an
 * {@link Op.AddNorm} as the add then the norm op. Steps the result does not depend on are not emitted; a
 * result that depends on fewer operands than the op broadcasts is expanded to the op's shape.
 */
final class FusionProducts {
    private FusionProducts() {}

    static List<Value> fused(Node n, Rewriter r) {
        ElementwiseProgram p = ((Op.Fused) n.op()).program();
        Graph g = r.graph();
        return List.of(broadcastTo(g, program(g, p, r.get(n.inputs())), n.output().shape()));
    }

    /** {@code epilogue(a @ b, extras...)}; the matmul keeps the op's transpose flags. */
    static List<Value> fusedMatMul(Node n, Rewriter r) {
        Op.FusedMatMul f = (Op.FusedMatMul) n.op();
        Graph g = r.graph();
        List<Value> in = r.get(n.inputs());
        Value mm = g.apply1(new Op.MatMul(f.transA(), f.transB()), in.get(0), in.get(1));
        List<Value> operands = new ArrayList<>();
        operands.add(mm);
        operands.addAll(in.subList(2, in.size()));
        return List.of(broadcastTo(g, program(g, f.epilogue(), operands), mm.shape()));
    }

    /**
     * Outputs (sum, norm(sum)): the norm reads the sum as rounded to the data's type. (Half data is widened
     * first, so there the norm reads the f32 sum, as the CPU kernel does.)
     */
    static List<Value> addNorm(Node n, Rewriter r) {
        Op.AddNorm op = (Op.AddNorm) n.op();
        Graph g = r.graph();
        List<Value> in = r.get(n.inputs());
        Value sum = g.add(in.get(0), in.get(1));
        Value gamma = in.get(2);
        Value beta = in.size() > 3 ? in.get(3) : null;
        Value norm = op.rms() ? g.rmsNorm(sum, gamma, beta, op.axis(), op.eps())
                : g.layerNorm(sum, gamma, beta, op.axis(), op.eps());
        return List.of(sum, norm);
    }

    /** The program's result, one node per step it depends on, on {@code operands}. */
    private static Value program(Graph g, ElementwiseProgram p, List<Value> operands) {
        List<ElementwiseProgram.Step> steps = p.steps();
        int inputs = p.inputs();
        int last = inputs + steps.size() - 1;
        boolean[] needed = new boolean[last + 1];
        needed[last] = true;
        for (int v = last; v >= inputs; v--) {
            ElementwiseProgram.Step s = steps.get(v - inputs);
            if (needed[v]) {
                for (int k = 0; k < s.arity(); k++) {
                    needed[s.operand(k)] = true;
                }
            }
        }
        Value[] values = new Value[last + 1];
        for (int i = 0; i < inputs; i++) {
            values[i] = operands.get(i);
        }
        for (int v = inputs; v <= last; v++) {
            ElementwiseProgram.Step s = steps.get(v - inputs);
            if (needed[v]) {
                Value a = values[s.a()];
                values[v] = s.isUnary() ? g.unary(s.unary(), a)
                        : s.isBinary() ? g.binary(s.binary(), a, values[s.b()])
                        : s.isCompare() ? g.compare(s.compare(), a, values[s.b()])
                        : g.where(a, values[s.b()], values[s.c()]);
            }
        }
        return values[last];
    }

    private static Value broadcastTo(Graph g, Value v, Shape shape) {
        return v.shape().equals(shape) ? v : g.expand(v, shape.dims());
    }
}
