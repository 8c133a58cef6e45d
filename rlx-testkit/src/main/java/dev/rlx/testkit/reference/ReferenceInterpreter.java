package dev.rlx.testkit.reference;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.opt.ConstantEvaluator;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.RngOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs any {@link Graph} slowly and obviously correctly: the living definition of every op, against which the
 * backends are tested. Each node is one small method written from the op's Javadoc in {@code Op}: plain loops
 * in double for floats, in long for integers (exact, wrapping to the width as the IR defines), with every
 * node's outputs stored in their declared dtypes (rounded once, as a backend stores them) and everything inside
 * a node in double. Control flow runs its subgraphs; custom ops run their CPU kernel from
 * {@code OpRegistry.global()}; random ops draw the streams of the given {@link RngOptions} on the first run
 * after compiling.
 *
 * <p>Stateless apart from its options, so one instance may be shared by threads. It doubles as a
 * {@link ConstantEvaluator}, so the optimiser's constant folding can use the reference instead of a backend.
 */
public final class ReferenceInterpreter implements ConstantEvaluator {
    private final RngOptions rng;

    /** An interpreter drawing random numbers as {@link RngOptions#defaults()} does (a compile's default). */
    public ReferenceInterpreter() {
        this(RngOptions.defaults());
    }

    public ReferenceInterpreter(RngOptions rng) {
        this.rng = java.util.Objects.requireNonNull(rng, "rng");
    }

    /**
     * Runs {@code g} once with {@code data} holding every input and param by name, and returns the outputs in
     * order, each in its declared shape and dtype.
     *
     * @throws ReferenceException when data is missing or mis-shaped, or a node cannot run (an index out of
     *                            range, a loop past its guard, a custom op without a CPU kernel...)
     */
    public List<Tensor> run(Graph g, Map<String, Tensor> data) {
        Map<String, RefTensor> sources = new HashMap<>();
        for (Value v : concat(g.inputs(), g.params())) {
            String name = g.nameOf(v);
            Tensor t = data.get(name);
            if (t == null) {
                throw new ReferenceException("graph @" + g.name() + ": no data for " + describe(g, v) + " " + v.shape());
            }
            if (!t.shape().equals(v.shape())) {
                throw new ReferenceException("graph @" + g.name() + ": " + describe(g, v) + " is " + v.shape()
                        + " but the data is " + t.shape());
            }
            sources.put(name, RefTensor.of(t));
        }
        return execute(g, sources).stream().map(RefTensor::toTensor).toList();
    }

    /** Runs a graph without inputs or params (a constant subgraph); the plan is not needed. */
    @Override
    public List<Tensor> evaluate(Graph g, MemoryPlan plan) {
        return run(g, Map.of());
    }

    private static String describe(Graph g, Value v) {
        return (g.inputs().contains(v) ? "input '" : "param '") + g.nameOf(v) + "'";
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    // ---------------------------------------------------------------- the graph walk

    private List<RefTensor> execute(Graph g, Map<String, RefTensor> sources) {
        List<List<RefTensor>> values = new ArrayList<>(g.size());
        for (Node n : g.nodes()) {
            List<RefTensor> in = new ArrayList<>(n.inputs().size());
            for (Value v : n.inputs()) {
                in.add(values.get(v.nodeId()).get(v.outputIndex()));
            }
            List<RefTensor> out;
            try {
                out = evaluate(n, in, sources);
            } catch (ReferenceException e) {
                throw new ReferenceException("[" + n.op().label() + "] " + n.describe() + " in @" + g.name() + ": "
                        + e.getMessage(), e);
            }
            for (int i = 0; i < out.size(); i++) {
                Shape declared = n.outputs().get(i).shape();
                if (!out.get(i).shape.equals(declared)) { // a slip in the reference itself
                    throw new IllegalStateException(n.describe() + " output " + i + " is " + out.get(i).shape
                            + " but the node declares " + declared);
                }
            }
            values.add(out);
        }
        List<RefTensor> outputs = new ArrayList<>();
        for (Value v : g.outputs()) {
            outputs.add(values.get(v.nodeId()).get(v.outputIndex()));
        }
        return outputs;
    }

    /** Runs subgraph {@code g} with its inputs bound in declaration order. */
    private List<RefTensor> call(Graph g, List<RefTensor> args) {
        Map<String, RefTensor> sources = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            sources.put(g.nameOf(g.inputs().get(i)), args.get(i));
        }
        return execute(g, sources);
    }

    /** One node: an exhaustive switch, so a new op does not compile until the reference defines it. */
    private List<RefTensor> evaluate(Node n, List<RefTensor> in, Map<String, RefTensor> sources) {
        Shape out = n.outputs().get(0).shape();
        List<Shape> outs = n.outputs().stream().map(Value::shape).toList();
        return switch (n.op()) {
            case Op.Input i -> List.of(sources.get(i.name()));
            case Op.Param p -> List.of(sources.get(p.name()));
            case Op.Constant c -> List.of(RefTensor.of(c.value()));
            case Op.Unary u -> List.of(ElementwiseReference.unary(u.op(), in.get(0), out));
            case Op.Binary b -> List.of(ElementwiseReference.binary(b.op(), in.get(0), in.get(1), out));
            case Op.Compare c -> List.of(ElementwiseReference.compare(c.op(), in.get(0), in.get(1), out));
            case Op.Where w -> List.of(ElementwiseReference.where(in.get(0), in.get(1), in.get(2), out));
            case Op.Cast c -> List.of(ElementwiseReference.cast(in.get(0), out));
            case Op.MatMul m -> List.of(MatMulReference.matmul(in.get(0), in.get(1), m.transA(), m.transB(), out));
            case Op.QuantMatMul q -> List.of(QuantMatMulReference.quantMatMul(q, in.get(0), in.get(1), out));
            case Op.Reduce r -> List.of(ReduceReference.reduce(r.op(), r.axes(), in.get(0), out));
            case Op.ArgReduce a -> List.of(ReduceReference.argReduce(a, in.get(0), out));
            case Op.Cumsum c -> List.of(ReduceReference.cumsum(c, in.get(0), out));
            case Op.TopK t -> ReduceReference.topK(t, in.get(0), outs);
            case Op.Softmax s -> List.of(NormReference.softmax(in.get(0), s.axis(), false, out));
            case Op.LogSoftmax s -> List.of(NormReference.softmax(in.get(0), s.axis(), true, out));
            case Op.LayerNorm l -> List.of(NormReference.trailingNorm(in.get(0), in.get(1), optional(in, 2), l.axis(),
                    l.eps(), true, out));
            case Op.RmsNorm r -> List.of(NormReference.trailingNorm(in.get(0), in.get(1), optional(in, 2), r.axis(),
                    r.eps(), false, out));
            case Op.GroupNorm gn -> List.of(NormReference.groupNorm(in.get(0), in.get(1), in.get(2), gn.numGroups(),
                    gn.eps(), out));
            case Op.Reshape r -> List.of(MovementReference.reshape(in.get(0), out));
            case Op.Transpose t -> List.of(MovementReference.transpose(in.get(0), t.perm(), out));
            case Op.Slice s -> List.of(MovementReference.slice(in.get(0), s.axis(), s.start(), s.step(), out));
            case Op.Concat c -> List.of(MovementReference.concat(in, c.axis(), out));
            case Op.Expand e -> List.of(MovementReference.expand(in.get(0), out));
            case Op.Gather g -> List.of(IndexReference.gather(in.get(0), in.get(1), g.axis(), out));
            case Op.ScatterAdd s -> List.of(IndexReference.scatterAdd(in.get(0), in.get(1), in.get(2), s.axis(), out));
            case Op.Attention a -> List.of(NnOps.attention(a, in, out));
            case Op.PagedAttention a -> List.of(PagedAttentionReference.pagedAttention(a, in, out));
            case Op.Rope r -> List.of(NnOps.rope(r, in, out));
            case Op.Conv c -> List.of(NnOps.conv(c, in, out));
            case Op.ConvTranspose c -> List.of(NnOps.convTranspose(c, in, out));
            case Op.Pool p -> List.of(NnOps.pool(p, in.get(0), out));
            case Op.Fft f -> List.of(FftReference.fft(f, in.get(0), out));
            case Op.If i -> ifElse(i, in);
            case Op.While w -> whileLoop(w, in);
            case Op.Scan s -> scan(s, in, outs);
            case Op.Fused f -> List.of(ElementwiseReference.fused(f.program(), in, out));
            case Op.FusedMatMul f -> List.of(MatMulReference.fused(f.epilogue(), f.transA(), f.transB(), in, out));
            case Op.AddNorm a -> NormReference.addNorm(in, a.rms(), a.axis(), a.eps(), outs);
            case Op.Custom c -> CustomReference.run(c, in, outs);
            case Op.RngNormal r -> List.of(RngReference.draw(true, r.mean(), r.scale(), r.seed(), r.hasSeed(), r.key(),
                    rng, out));
            case Op.RngUniform r -> List.of(RngReference.draw(false, r.low(), r.high(), r.seed(), r.hasSeed(), r.key(),
                    rng, out));
        };
    }

    private static RefTensor optional(List<RefTensor> in, int i) {
        return in.size() > i ? in.get(i) : null;
    }

    // ---------------------------------------------------------------- control flow

    /** Runs only the branch the predicate picks, on the captures. */
    private List<RefTensor> ifElse(Op.If op, List<RefTensor> in) {
        Graph branch = in.get(0).get(0) != 0 ? op.thenBranch() : op.elseBranch();
        return call(branch, in.subList(1, in.size()));
    }

    /** {@code while (cond(c)) c = body(c)}; starting iteration {@code maxIterations + 1} is an error. */
    private List<RefTensor> whileLoop(Op.While op, List<RefTensor> carries) {
        List<RefTensor> c = carries;
        for (long iteration = 0; call(op.cond(), c).get(0).get(0) != 0; iteration++) {
            if (op.maxIterations() >= 0 && iteration == op.maxIterations()) {
                throw new ReferenceException("the loop still wants to iterate after its maxIterations guard of "
                        + op.maxIterations() + " iterations");
            }
            c = call(op.body(), c);
        }
        return c;
    }

    /** {@code lax.scan}: the final carries, then each per-step output stacked along a new leading dim. */
    private List<RefTensor> scan(Op.Scan op, List<RefTensor> in, List<Shape> outs) {
        int nc = op.numCarries();
        List<RefTensor> carries = in.subList(0, nc);
        List<RefTensor> xs = in.subList(nc, in.size());
        List<RefTensor> stacked = new ArrayList<>();
        for (Shape s : outs.subList(nc, outs.size())) {
            stacked.add(RefTensor.zeros(s));
        }
        for (int step = 0; step < op.length(); step++) {
            int t = op.reverse() ? op.length() - 1 - step : step;
            List<RefTensor> args = new ArrayList<>(carries);
            for (RefTensor x : xs) {
                args.add(row(x, t));
            }
            List<RefTensor> res = call(op.body(), args);
            carries = res.subList(0, nc);
            for (int j = 0; j < stacked.size(); j++) {
                RefTensor y = res.get(nc + j);
                for (int e = 0; e < y.size(); e++) {
                    stacked.get(j).copy(t * y.size() + e, y, e);
                }
            }
        }
        List<RefTensor> result = new ArrayList<>(carries);
        result.addAll(stacked);
        return result;
    }

    /** {@code x[t]}: the slice at index t of the leading dim. */
    private static RefTensor row(RefTensor x, int t) {
        int[] d = x.shape.dims();
        RefTensor r = RefTensor.zeros(Shape.of(x.dtype(), java.util.Arrays.copyOfRange(d, 1, d.length)));
        for (int e = 0; e < r.size(); e++) {
            r.copy(e, x, t * r.size() + e);
        }
        return r;
    }
}
