package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.RlxException;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lowers one ONNX model, for one {@link OnnxBinding}, into an IR graph: binds input shapes, turns
 * initializers into params (large float tensors) or constants, lowers each node with its {@link Converter},
 * and lowers subgraphs into the IR's control-flow ops. Not reusable: one importer per import.
 */
final class Importer {
    /** Float initializers with more elements than this become params (weights); smaller ones constants. */
    static final int PARAM_THRESHOLD = 64;

    private final OnnxProto.Model model;
    private final Path modelDir;
    private final OnnxBinding binding;
    private final Limits limits;
    private final int opset;
    private final StaticEvaluator evaluator;
    /** Nodes counted so far in each graph the import built into, and in all of them together. */
    private final Map<Graph, Integer> counted = new IdentityHashMap<>();
    private long nodes;
    /** The product of the trip counts of the loops being unrolled around the node being lowered. */
    private long unrolled = 1;
    private final Map<String, Tensor> weights = new LinkedHashMap<>();
    private final Map<String, Tensor> frozen = new LinkedHashMap<>();
    private final Map<String, Integer> symbols = new LinkedHashMap<>();
    private final Map<Value, Value> exactFloats = new HashMap<>();
    private Graph top;

    Importer(OnnxProto.Model model, Path modelDir, OnnxBinding binding, Limits limits) {
        this.limits = limits;
        this.evaluator = new StaticEvaluator(limits);
        this.model = model;
        this.modelDir = modelDir;
        this.binding = binding;
        Long v = model.opsets().get("");
        this.opset = v == null ? 1 : (int) Math.min(Integer.MAX_VALUE, Math.max(1, v));
        symbols.putAll(binding.dims());
    }

    OnnxGraph run() {
        OnnxProto.Graph gd = model.graph();
        if (gd.sparseInitializers() > 0) {
            throw new OnnxUnsupportedException("sparse tensors", "graph '" + gd.name() + "' has sparse initializers");
        }
        top = new Graph(gd.name().isBlank() ? "onnx" : gd.name());
        Scope scope = new Scope(null, top);
        long weightBytes = 0;
        for (TensorDef t : gd.initializers()) {
            Tensor value = decode(t);
            weightBytes += value.byteLength();
            limits.check(Limits.Kind.WEIGHT_BYTES, "the initializers of graph '" + gd.name() + "' up to tensor '"
                    + t.name() + "'", weightBytes);
            if (value.dtype().isFloat() && value.shape().elementCount() > PARAM_THRESHOLD) {
                weights.put(t.name(), value);
                scope.define(t.name(), top.param(t.name(), value.shape()));
            } else {
                scope.defineStatic(t.name(), value);
            }
        }
        for (OnnxProto.ValueInfo in : gd.inputs()) {
            if (!scope.definesLocally(in.name())) {
                scope.define(in.name(), top.input(in.name(), inputShape(in)));
            }
        }
        for (String name : binding.shapes().keySet()) {
            if (gd.inputs().stream().noneMatch(i -> i.name().equals(name))) {
                throw new OnnxImportException("the binding names input '" + name + "' but the model's inputs are "
                        + gd.inputs().stream().filter(i -> !weights.containsKey(i.name())).map(OnnxProto.ValueInfo::name).toList());
            }
        }
        lower(gd, scope);
        List<Value> outs = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (OnnxProto.ValueInfo o : gd.outputs()) {
            Value v = scope.lookup(o.name());
            if (v == null) {
                throw new OnnxImportException("graph output '" + o.name() + "' is not produced by any node");
            }
            outs.add(v);
            names.add(o.name());
        }
        if (outs.isEmpty()) {
            throw new OnnxImportException("graph '" + gd.name() + "' has no outputs");
        }
        top.setOutputs(outs);
        return new OnnxGraph(top, weights, names, frozen);
    }

    /** The shape of a graph input: from the binding, or its declared dims with symbols bound. */
    private Shape inputShape(OnnxProto.ValueInfo in) {
        String what = "graph input '" + in.name() + "'";
        OnnxProto.TypeDef t = in.type();
        if (t.kind() != OnnxProto.ValueKind.TENSOR) {
            throw new OnnxUnsupportedException(t.kind().name().toLowerCase() + " values",
                    what + " is a " + t.kind().name().toLowerCase() + "; RLX imports tensors only");
        }
        DType dt = OnnxTypes.dtype(t.elemType(), what);
        Shape given = binding.shapes().get(in.name());
        if (given != null) {
            if (given.dtype() != dt) {
                throw new OnnxImportException(what + " is " + OnnxTypes.name(t.elemType()) + " but is given " + given);
            }
            if (t.hasShape()) {
                if (t.dims().length != given.rank()) {
                    throw new OnnxImportException(what + " has rank " + t.dims().length + " but is given " + given);
                }
                for (int i = 0; i < given.rank(); i++) {
                    String sym = t.dimParams()[i];
                    if (sym != null) {
                        Integer prev = symbols.putIfAbsent(sym, given.dim(i));
                        if (prev != null && prev != given.dim(i)) {
                            throw new OnnxImportException(what + ": dim '" + sym + "' is " + given.dim(i)
                                    + " but another input bound it to " + prev);
                        }
                    } else if (t.dims()[i] >= 0 && t.dims()[i] != given.dim(i)) {
                        throw new OnnxImportException(what + " has dim " + i + " = " + t.dims()[i] + " but is given "
                                + given);
                    }
                }
            }
            return checkedInput(what, given);
        }
        if (!t.hasShape()) {
            throw new OnnxImportException(what + " has no declared shape; give it in the binding");
        }
        int[] dims = new int[t.dims().length];
        for (int i = 0; i < dims.length; i++) {
            String sym = t.dimParams()[i];
            if (sym != null) {
                Integer v = symbols.get(sym);
                if (v == null) {
                    throw new OnnxImportException(what + ": dim " + i + " is the symbol '" + sym
                            + "'; bind it (OnnxBinding.withDim) or give the input's shape");
                }
                dims[i] = v;
            } else if (t.dims()[i] < 0 || t.dims()[i] > Integer.MAX_VALUE) {
                throw new OnnxImportException(what + ": dim " + i + " is unknown; give the input's shape");
            } else {
                dims[i] = (int) t.dims()[i];
            }
        }
        return checkedInput(what, Shape.of(dt, dims));
    }

    private Shape checkedInput(String what, Shape s) {
        limits.check(Limits.Kind.TENSOR_BYTES, what + " " + s, s.byteSize());
        return s;
    }

    Limits limits() {
        return limits;
    }

    /**
     * Counts the nodes added to {@code g} since it was last counted, checks the total against
     * {@link Limits.Kind#GRAPH_NODES} and each new value against {@link Limits.Kind#TENSOR_BYTES}.
     */
    private void account(Graph g, NodeCtx ctx) {
        int from = counted.getOrDefault(g, 0);
        int to = g.size();
        nodes += to - from;
        counted.put(g, to);
        limits.check(Limits.Kind.GRAPH_NODES, ctx.describe() + ": the imported graphs (loops unrolled)", nodes);
        for (int i = from; i < to; i++) {
            for (Value v : g.node(i).outputs()) {
                limits.check(Limits.Kind.TENSOR_BYTES, ctx.describe() + ": value " + v.shape(), v.shape().byteSize());
            }
        }
    }

    /**
     * Whether a loop of {@code trips} iterations may be unrolled here: the iterations of it and of the loops
     * being unrolled around it together are at most {@link ControlFlowOps#MAX_UNROLL} (a per-loop bound let two
     * nested loops of 1024 unroll to a million bodies).
     */
    boolean mayUnroll(long trips) {
        long t = Math.max(1, trips);
        return t <= ControlFlowOps.MAX_UNROLL && unrolled * t <= ControlFlowOps.MAX_UNROLL;
    }

    /** Runs {@code body} (an unrolling of {@code trips} iterations) with them counted in {@link #mayUnroll}. */
    void unrolling(long trips, Runnable body) {
        long saved = unrolled;
        unrolled = saved * Math.max(1, trips);
        try {
            body.run();
        } finally {
            unrolled = saved;
        }
    }

    // ---------------------------------------------------------------- lowering

    /** Lowers the nodes of {@code gd} into {@code scope}'s graph. */
    void lower(OnnxProto.Graph gd, Scope scope) {
        for (OnnxProto.Node n : gd.nodes()) {
            if (!n.domain().isEmpty()) {
                throw new OnnxUnsupportedException(n.domain() + ":" + n.opType(), n.describe() + ": domain '" + n.domain()
                        + "' is not supported (only the default ONNX domain)");
            }
            Converter conv = OpTable.get(n.opType());
            if (conv == null) {
                throw new OnnxUnsupportedException(n.opType(), n.describe() + ": op " + n.opType() + " is not supported");
            }
            NodeCtx ctx = new NodeCtx(n, scope, this, opset);
            try {
                conv.convert(ctx);
            } catch (OnnxImportException | OnnxFormatException e) {
                throw e;
            } catch (LimitExceededException e) { // stays a limit error, naming the node once
                throw e.what().contains(ctx.describe()) ? e : e.within(ctx.describe());
            } catch (RlxException e) {
                throw new OnnxImportException(ctx.describe() + ": " + e.getMessage(), e);
            } catch (ArithmeticException | IllegalArgumentException | IndexOutOfBoundsException | NullPointerException
                     | ClassCastException | UnsupportedOperationException e) {
                throw new OnnxImportException(ctx.describe() + ": cannot import (" + e + ")", e);
            }
            account(scope.graph, ctx);
            for (int i = 0; i < n.outputs().size(); i++) {
                String name = n.outputs().get(i);
                if (name.isEmpty()) {
                    continue;
                }
                Value v = ctx.output(i);
                if (v == null) {
                    throw new OnnxUnsupportedException(n.opType() + " output " + i, ctx.describe() + ": output " + i
                            + " ('" + name + "') is not supported");
                }
                scope.define(name, v);
            }
        }
    }

    /** The IR value named {@code name} in {@code scope}. */
    Value value(Scope scope, String name, NodeCtx ctx) {
        Value v = scope.lookup(name);
        if (v == null) {
            throw ctx.fail("input '%s' is not produced by an earlier node, input or initializer", name);
        }
        return v;
    }

    /** The value of {@code name}, computed now; see {@link NodeCtx#constant}. */
    Tensor staticValue(Scope scope, String name, NodeCtx ctx) {
        Tensor t = scope.staticValue(name);
        if (t != null) {
            return t;
        }
        Value v = value(scope, name, ctx);
        try {
            return evaluator.evaluate(v, this::source);
        } catch (StaticEvaluator.NotStatic e) {
            throw ctx.fail("input '%s' must be known at import time, but it depends on %s; bind that input's value "
                    + "(OnnxBinding.withValue)", name, e.input == null ? "a subgraph input" : "input '" + e.input + "'");
        }
    }

    private Tensor source(Node n) {
        if (n.op() instanceof Op.Param p) {
            return weights.get(p.name());
        }
        if (n.op() instanceof Op.Input in && n.output().graph() == top) {
            Tensor t = binding.values().get(in.name());
            if (t != null) {
                frozen.put(in.name(), t);
            }
            return t;
        }
        return null;
    }

    Tensor decode(TensorDef t) {
        return TensorDecoder.decode(t, modelDir, limits);
    }

    /** The IR values a subgraph needs from {@code parent}: the free names it uses not known at import time. */
    List<String> captures(OnnxProto.Graph sub, Scope parent, NodeCtx ctx) {
        List<String> out = new ArrayList<>();
        for (String name : Subgraphs.freeNames(sub)) {
            if (parent.staticValue(name) == null) {
                value(parent, name, ctx); // fails when the name is undefined
                out.add(name);
            }
        }
        return out;
    }

    /**
     * Lowers subgraph {@code sub} into a new IR graph whose inputs are its formal inputs (with
     * {@code formals} shapes) followed by {@code captures} (values of the parent scope).
     */
    Graph subgraph(OnnxProto.Graph sub, Scope parent, List<Shape> formals, List<String> captures, String label,
                   NodeCtx ctx) {
        if (formals.size() != sub.inputs().size()) {
            throw ctx.fail("subgraph '%s' declares %d inputs but %d are passed", label, sub.inputs().size(), formals.size());
        }
        Graph g = new Graph(label);
        List<Value> in = new ArrayList<>();
        for (int i = 0; i < formals.size(); i++) {
            String name = sub.inputs().get(i).name();
            in.add(g.input(name.isEmpty() ? "in" + i : name, formals.get(i)));
        }
        Scope s = new Scope(parent, g);
        for (String c : captures) {
            s.define(c, g.input(c, value(parent, c, ctx).shape()));
        }
        g.setOutputs(lowerBody(sub, s, in, label, ctx));
        return g;
    }

    /**
     * Lowers the nodes of subgraph {@code sub} in scope {@code s} with its formal inputs bound to
     * {@code formals} (a value, or a {@link Tensor} known at import time), returning its outputs.
     */
    List<Value> lowerBody(OnnxProto.Graph sub, Scope s, List<?> formals, String label, NodeCtx ctx) {
        if (formals.size() != sub.inputs().size()) {
            throw ctx.fail("subgraph '%s' declares %d inputs but %d are passed", label, sub.inputs().size(), formals.size());
        }
        for (TensorDef t : sub.initializers()) {
            s.defineStatic(t.name(), decode(t));
        }
        for (int i = 0; i < formals.size(); i++) {
            String name = sub.inputs().get(i).name();
            if (formals.get(i) instanceof Tensor t) {
                s.defineStatic(name, t);
            } else {
                s.define(name, (Value) formals.get(i));
            }
        }
        lower(sub, s);
        List<Value> outs = new ArrayList<>();
        for (OnnxProto.ValueInfo o : sub.outputs()) {
            Value v = s.lookup(o.name());
            if (v == null) {
                throw ctx.fail("subgraph '%s' output '%s' is not produced by any node", label, o.name());
            }
            outs.add(v);
        }
        if (outs.isEmpty()) {
            throw ctx.fail("subgraph '%s' has no outputs", label);
        }
        return outs;
    }

    /** Records that integer value {@code v} holds exactly the numbers of float value {@code f}. */
    void exactFloat(Value v, Value f) {
        exactFloats.put(v, f);
    }

    /** A float value of the same graph holding exactly the numbers of {@code v}, or {@code v} itself. */
    Value exactOrSelf(Value v) {
        Value f = exactFloats.get(v);
        return f != null && f.graph() == v.graph() ? f : v;
    }

    /**
     * The value of {@code v} if it can be computed at import time, else null. With {@code bindInputs}, graph
     * inputs bound by value count as known (and become frozen if used).
     */
    Tensor tryStatic(Value v, boolean bindInputs) {
        if (bindInputs) {
            return tryStaticFrom(v, Integer.MAX_VALUE);
        }
        try {
            return evaluator.evaluate(v, n -> n.op() instanceof Op.Param p ? weights.get(p.name()) : null);
        } catch (StaticEvaluator.NotStatic e) {
            return null;
        }
    }

    /**
     * The value of {@code v} if it can be computed at import time from weights, constants and top-level inputs
     * bound by value with at most {@code maxElements} elements each, else null. The inputs it read become frozen
     * only when it succeeds.
     */
    Tensor tryStaticFrom(Value v, int maxElements) {
        Map<String, Tensor> used = new LinkedHashMap<>();
        try {
            Tensor t = evaluator.evaluate(v, n -> {
                if (n.op() instanceof Op.Param p) {
                    return weights.get(p.name());
                }
                if (n.op() instanceof Op.Input in && n.output().graph() == top) {
                    Tensor b = binding.values().get(in.name());
                    if (b != null && b.shape().elementCount() <= maxElements) {
                        used.put(in.name(), b);
                        return b;
                    }
                }
                return null;
            });
            frozen.putAll(used);
            return t;
        } catch (StaticEvaluator.NotStatic e) {
            return null;
        }
    }
}
