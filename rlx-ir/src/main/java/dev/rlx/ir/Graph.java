package dev.rlx.ir;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A named compute graph under construction: an append-only list of {@link Node}s in topological order,
 * plus the outputs. Builders infer each result's shape and dtype and reject bad operands at once with a
 * {@link ShapeException} naming the op, the operands and the rule.
 *
 * <pre>{@code
 * Graph g = new Graph("hello");
 * Value x = g.input("x", Shape.of(DType.F32, 1, 4));
 * Value w = g.param("w", Shape.of(DType.F32, 4, 2));
 * g.setOutputs(g.matmul(x, w));
 * }</pre>
 *
 * <p>Input and param names are unique within a graph. A graph is not thread-safe while being built; once
 * built and handed to a compiler it must not be modified.
 */
public final class Graph {
    private final String name;
    private final List<Node> nodes = new ArrayList<>();
    private final Map<String, Value> inputs = new LinkedHashMap<>();
    private final Map<String, Value> params = new LinkedHashMap<>();
    private List<Value> outputs = List.of();

    public Graph(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("graph name must be non-empty");
        }
        this.name = name;
    }

    public String name() {
        return name;
    }

    // ---------------------------------------------------------------- structure

    /** All nodes, in creation (topological) order. */
    public List<Node> nodes() {
        return Collections.unmodifiableList(nodes);
    }

    public Node node(int id) {
        if (id < 0 || id >= nodes.size()) {
            throw new IndexOutOfBoundsException("graph @" + name + " has no node %" + id + " (size " + nodes.size() + ")");
        }
        return nodes.get(id);
    }

    public int size() {
        return nodes.size();
    }

    /** Input values in declaration order. */
    public List<Value> inputs() {
        return List.copyOf(inputs.values());
    }

    /** Param values in declaration order. */
    public List<Value> params() {
        return List.copyOf(params.values());
    }

    public Value input(String inputName) {
        Value v = inputs.get(inputName);
        if (v == null) {
            throw new IllegalArgumentException("graph @" + name + " has no input '" + inputName + "' (inputs: "
                    + inputs.keySet() + ")");
        }
        return v;
    }

    public Value param(String paramName) {
        Value v = params.get(paramName);
        if (v == null) {
            throw new IllegalArgumentException("graph @" + name + " has no param '" + paramName + "' (params: "
                    + params.keySet() + ")");
        }
        return v;
    }

    public List<Shape> inputShapes() {
        return inputs.values().stream().map(Value::shape).toList();
    }

    public List<Value> outputs() {
        return outputs;
    }

    public List<Shape> outputShapes() {
        return outputs.stream().map(Value::shape).toList();
    }

    /** The name of an input or param value, or null for other values. */
    public String nameOf(Value v) {
        return node(v.nodeId()).name();
    }

    /** Sets the graph's results, in order. Values may repeat; each must belong to this graph. */
    public void setOutputs(Value... values) {
        setOutputs(Arrays.asList(values));
    }

    public void setOutputs(List<Value> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("graph @" + name + ": setOutputs needs at least one value");
        }
        for (Value v : values) {
            owned("setOutputs", v);
        }
        outputs = List.copyOf(values);
    }

    /** Gives the node producing {@code v} a name for printing and messages; returns {@code v}. */
    public Value name(Value v, String nodeName) {
        owned("name", v);
        Op op = nodes.get(v.nodeId()).op();
        if (op instanceof Op.Input || op instanceof Op.Param) {
            throw new IllegalArgumentException("graph @" + name + ": " + nodes.get(v.nodeId()).describe()
                    + " is named by its op (the name callers bind data to); display names are for other nodes");
        }
        nodes.set(v.nodeId(), nodes.get(v.nodeId()).withName(nodeName));
        return v;
    }

    /** Verifies the whole graph; see {@link GraphVerifier}. Returns the warnings. */
    public List<String> verify() {
        return GraphVerifier.verify(this);
    }

    /** SHA-256 (hex) of the graph's canonical bytes, excluding its name: equal for equally built graphs. */
    public String fingerprint() {
        return GraphSerializer.fingerprint(this);
    }

    /** Readable text form; see {@link GraphPrinter}. */
    @Override
    public String toString() {
        return GraphPrinter.print(this);
    }

    // ---------------------------------------------------------------- generic application

    /**
     * Appends {@code op} applied to {@code operands} and returns its outputs. Every builder goes through
     * here; the op's shape rule validates the operands.
     */
    public List<Value> apply(Op op, Value... operands) {
        return apply(op, Arrays.asList(operands));
    }

    public List<Value> apply(Op op, List<Value> operands) {
        Objects.requireNonNull(op, "op");
        List<Shape> shapes = new ArrayList<>(operands.size());
        for (Value v : operands) {
            shapes.add(owned(op.label(), v).shape());
        }
        for (OpFields.Field f : OpFields.of(op).fields()) {
            if (f.type() == OpFields.FieldType.GRAPH && reaches((Graph) f.get(op), this,
                    Collections.newSetFromMap(new java.util.IdentityHashMap<>()))) {
                throw new ShapeException("[" + op.label() + "] " + f.name() + " graph @" + ((Graph) f.get(op)).name()
                        + " is or contains @" + name + " itself; a graph cannot run inside itself");
            }
        }
        List<Shape> outShapes = op.outputShapes(shapes);
        if (op instanceof Op.Input in) {
            claimName(in.name(), "input");
        } else if (op instanceof Op.Param p) {
            claimName(p.name(), "param");
        }
        int id = nodes.size();
        List<Value> outs = new ArrayList<>(outShapes.size());
        for (int i = 0; i < outShapes.size(); i++) {
            outs.add(new Value(this, id, i, outShapes.get(i)));
        }
        nodes.add(new Node(id, op, operands, outs, null));
        if (op instanceof Op.Input in) {
            inputs.put(in.name(), outs.get(0));
        } else if (op instanceof Op.Param p) {
            params.put(p.name(), outs.get(0));
        }
        return outs;
    }

    /** {@link #apply} for single-output ops. */
    public Value apply1(Op op, Value... operands) {
        List<Value> outs = apply(op, operands);
        if (outs.size() != 1) {
            throw new IllegalArgumentException("[" + op.label() + "] has " + outs.size() + " outputs; use apply");
        }
        return outs.get(0);
    }

    /** Whether {@code target} is {@code from} or a subgraph of it at any depth. */
    private static boolean reaches(Graph from, Graph target, java.util.Set<Graph> seen) {
        if (from == target) {
            return true;
        }
        if (!seen.add(from)) {
            return false;
        }
        for (Node n : from.nodes) {
            for (OpFields.Field f : OpFields.of(n.op()).fields()) {
                if (f.type() == OpFields.FieldType.GRAPH && reaches((Graph) f.get(n.op()), target, seen)) {
                    return true;
                }
            }
        }
        return false;
    }

    private Value owned(String op, Value v) {
        if (v == null) {
            throw new ShapeException("[" + op + "] operand is null");
        }
        if (v.graph() != this) {
            throw new ShapeException("[" + op + "] operand " + v + " belongs to graph @" + v.graph().name()
                    + ", not @" + name + " (pass values between graphs as subgraph inputs)");
        }
        return v;
    }

    private void claimName(String n, String what) {
        if (inputs.containsKey(n) || params.containsKey(n)) {
            String existing = inputs.containsKey(n) ? "an input" : "a param";
            throw new IllegalArgumentException("graph @" + name + " already has " + existing + " named '" + n
                    + "'; input and param names must be unique (adding " + what + ")");
        }
    }

    // ---------------------------------------------------------------- sources

    /** A tensor supplied at run time under {@code name}. */
    public Value input(String inputName, Shape shape) {
        return apply1(new Op.Input(inputName, shape));
    }

    /** A weight supplied once with {@code setParam(name, ...)}. */
    public Value param(String paramName, Shape shape) {
        return apply1(new Op.Param(paramName, shape));
    }

    public Value constant(Tensor value) {
        return apply1(new Op.Constant(value));
    }

    /** An f32 constant with the given dims. */
    public Value constant(float[] data, int... dims) {
        return constant(Tensor.of(data, dims));
    }

    /** A rank-0 f32 constant. */
    public Value scalar(float v) {
        return constant(Tensor.scalar(v));
    }

    /** A rank-0 constant of {@code dtype}. */
    public Value scalar(DType dtype, double v) {
        return constant(Tensor.scalar(dtype, v));
    }

    // ---------------------------------------------------------------- element-wise

    public Value unary(UnaryKind kind, Value x) {
        return apply1(new Op.Unary(kind), x);
    }

    public Value relu(Value x) { return unary(UnaryKind.RELU, x); }

    /** Exact GELU (erf form). */
    public Value gelu(Value x) { return unary(UnaryKind.GELU, x); }

    /** GELU, tanh approximation. */
    public Value geluTanh(Value x) { return unary(UnaryKind.GELU_TANH, x); }

    public Value silu(Value x) { return unary(UnaryKind.SILU, x); }

    public Value sigmoid(Value x) { return unary(UnaryKind.SIGMOID, x); }

    public Value tanh(Value x) { return unary(UnaryKind.TANH, x); }

    public Value exp(Value x) { return unary(UnaryKind.EXP, x); }

    public Value log(Value x) { return unary(UnaryKind.LOG, x); }

    public Value sqrt(Value x) { return unary(UnaryKind.SQRT, x); }

    public Value rsqrt(Value x) { return unary(UnaryKind.RSQRT, x); }

    public Value reciprocal(Value x) { return unary(UnaryKind.RECIPROCAL, x); }

    public Value neg(Value x) { return unary(UnaryKind.NEG, x); }

    public Value abs(Value x) { return unary(UnaryKind.ABS, x); }

    public Value sign(Value x) { return unary(UnaryKind.SIGN, x); }

    public Value sin(Value x) { return unary(UnaryKind.SIN, x); }

    public Value cos(Value x) { return unary(UnaryKind.COS, x); }

    public Value tan(Value x) { return unary(UnaryKind.TAN, x); }

    public Value atan(Value x) { return unary(UnaryKind.ATAN, x); }

    public Value erf(Value x) { return unary(UnaryKind.ERF, x); }

    /** Round half to even. */
    public Value round(Value x) { return unary(UnaryKind.ROUND, x); }

    public Value floor(Value x) { return unary(UnaryKind.FLOOR, x); }

    public Value ceil(Value x) { return unary(UnaryKind.CEIL, x); }

    public Value not(Value x) { return unary(UnaryKind.NOT, x); }

    public Value binary(BinaryKind kind, Value a, Value b) {
        return apply1(new Op.Binary(kind), a, b);
    }

    public Value add(Value a, Value b) { return binary(BinaryKind.ADD, a, b); }

    public Value sub(Value a, Value b) { return binary(BinaryKind.SUB, a, b); }

    public Value mul(Value a, Value b) { return binary(BinaryKind.MUL, a, b); }

    public Value div(Value a, Value b) { return binary(BinaryKind.DIV, a, b); }

    public Value pow(Value a, Value b) { return binary(BinaryKind.POW, a, b); }

    public Value max(Value a, Value b) { return binary(BinaryKind.MAX, a, b); }

    public Value min(Value a, Value b) { return binary(BinaryKind.MIN, a, b); }

    public Value mod(Value a, Value b) { return binary(BinaryKind.MOD, a, b); }

    public Value and(Value a, Value b) { return binary(BinaryKind.AND, a, b); }

    public Value or(Value a, Value b) { return binary(BinaryKind.OR, a, b); }

    public Value xor(Value a, Value b) { return binary(BinaryKind.XOR, a, b); }

    public Value compare(CompareKind kind, Value a, Value b) {
        return apply1(new Op.Compare(kind), a, b);
    }

    public Value eq(Value a, Value b) { return compare(CompareKind.EQ, a, b); }

    public Value ne(Value a, Value b) { return compare(CompareKind.NE, a, b); }

    public Value lt(Value a, Value b) { return compare(CompareKind.LT, a, b); }

    public Value le(Value a, Value b) { return compare(CompareKind.LE, a, b); }

    public Value gt(Value a, Value b) { return compare(CompareKind.GT, a, b); }

    public Value ge(Value a, Value b) { return compare(CompareKind.GE, a, b); }

    /** {@code cond ? a : b} with broadcasting. */
    public Value where(Value cond, Value a, Value b) {
        return apply1(new Op.Where(), cond, a, b);
    }

    public Value cast(Value x, DType to) {
        return apply1(new Op.Cast(to), x);
    }

    // ---------------------------------------------------------------- linear algebra

    /** {@code numpy.matmul} with the result shape inferred. */
    public Value matmul(Value a, Value b) {
        return apply1(new Op.MatMul(), a, b);
    }

    /** {@link #matmul(Value, Value)}, checking the result against {@code expected}. */
    /** {@code x . dequant(w)^T} with {@code w} in {@code format}'s blocks (see {@link Op.QuantMatMul}). */
    public Value quantMatMul(Value x, Value w, dev.rlx.ir.quant.WeightFormat format) {
        return apply1(new Op.QuantMatMul(format), x, w);
    }

    public Value matmul(Value a, Value b, Shape expected) {
        Shape inferred = new Op.MatMul().outputShapes(List.of(owned("matmul", a).shape(), owned("matmul", b).shape()))
                .get(0);
        if (!inferred.equals(expected)) {
            throw new ShapeException("[matmul] declared output shape " + expected + " differs from the inferred "
                    + inferred + " for " + a.shape() + " x " + b.shape());
        }
        return matmul(a, b);
    }

    // ---------------------------------------------------------------- reductions

    /** Reduces over {@code axes} (negative allowed; none means all axes). */
    public Value reduce(ReduceKind kind, Value x, boolean keepDims, int... axes) {
        return apply1(new Op.Reduce(kind, normAxes("reduce_" + kind.label(), x, axes), keepDims), x);
    }

    public Value reduceSum(Value x, boolean keepDims, int... axes) { return reduce(ReduceKind.SUM, x, keepDims, axes); }

    public Value reduceMean(Value x, boolean keepDims, int... axes) { return reduce(ReduceKind.MEAN, x, keepDims, axes); }

    public Value reduceMax(Value x, boolean keepDims, int... axes) { return reduce(ReduceKind.MAX, x, keepDims, axes); }

    public Value reduceMin(Value x, boolean keepDims, int... axes) { return reduce(ReduceKind.MIN, x, keepDims, axes); }

    public Value reduceProd(Value x, boolean keepDims, int... axes) { return reduce(ReduceKind.PROD, x, keepDims, axes); }

    public Value argMax(Value x, int axis, boolean keepDims) {
        return apply1(new Op.ArgReduce(Op.ArgReduce.Kind.ARGMAX, axis("argmax", x, axis), keepDims), x);
    }

    public Value argMin(Value x, int axis, boolean keepDims) {
        return apply1(new Op.ArgReduce(Op.ArgReduce.Kind.ARGMIN, axis("argmin", x, axis), keepDims), x);
    }

    public Value softmax(Value x, int axis) {
        return apply1(new Op.Softmax(axis("softmax", x, axis)), x);
    }

    public Value logSoftmax(Value x, int axis) {
        return apply1(new Op.LogSoftmax(axis("log_softmax", x, axis)), x);
    }

    public Value cumsum(Value x, int axis, boolean exclusive, boolean reverse) {
        return apply1(new Op.Cumsum(axis("cumsum", x, axis), exclusive, reverse), x);
    }

    /** Inclusive forward prefix sum. */
    public Value cumsum(Value x, int axis) {
        return cumsum(x, axis, false, false);
    }

    /** The k largest (or smallest) along {@code axis}: returns [values, indices (i64)]. */
    public List<Value> topK(Value x, int k, int axis, boolean largest) {
        return apply(new Op.TopK(k, axis("top_k", x, axis), largest), x);
    }

    // ---------------------------------------------------------------- normalisation

    /** Layer norm over axes {@code [axis, rank)}; {@code beta} may be null. */
    public Value layerNorm(Value x, Value gamma, Value beta, int axis, float eps) {
        Op op = new Op.LayerNorm(axis("layer_norm", x, axis), eps);
        return beta == null ? apply1(op, x, gamma) : apply1(op, x, gamma, beta);
    }

    /** RMS norm over the last axis, no bias (Llama). */
    public Value rmsNorm(Value x, Value gamma, float eps) {
        return rmsNorm(x, gamma, null, -1, eps);
    }

    /** RMS norm over axes {@code [axis, rank)}; {@code beta} may be null. */
    public Value rmsNorm(Value x, Value gamma, Value beta, int axis, float eps) {
        Op op = new Op.RmsNorm(axis("rms_norm", x, axis), eps);
        return beta == null ? apply1(op, x, gamma) : apply1(op, x, gamma, beta);
    }

    public Value groupNorm(Value x, Value gamma, Value beta, int numGroups, float eps) {
        return apply1(new Op.GroupNorm(numGroups, eps), x, gamma, beta);
    }

    // ---------------------------------------------------------------- movement

    /** Reshape; at most one dim may be -1, inferred from the element count. */
    public Value reshape(Value x, int... dims) {
        owned("reshape", x);
        int infer = -1;
        long known = 1;
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == -1) {
                if (infer >= 0) {
                    throw new ShapeException("[reshape] only one dim may be -1: " + Arrays.toString(dims));
                }
                infer = i;
            } else if (dims[i] < 0) {
                throw new ShapeException("[reshape] dim " + i + " is negative: " + Arrays.toString(dims));
            } else {
                known *= dims[i];
            }
        }
        int[] resolved = dims.clone();
        if (infer >= 0) {
            long total = x.shape().elementCount();
            if (known == 0 || total % known != 0) {
                throw new ShapeException("[reshape] cannot infer -1 in " + Arrays.toString(dims) + " for " + x.shape()
                        + " (" + total + " elements)");
            }
            if (total / known > Integer.MAX_VALUE) {
                throw new ShapeException("[reshape] the -1 in " + Arrays.toString(dims) + " for " + x.shape()
                        + " would be " + total / known + ", more than a dimension can hold");
            }
            resolved[infer] = (int) (total / known);
        }
        return apply1(new Op.Reshape(ShapeRules.list(resolved)), x);
    }

    public Value transpose(Value x, int... perm) {
        return apply1(new Op.Transpose(ShapeRules.list(perm)), x);
    }

    /** Swaps two axes (negative allowed). */
    public Value swapAxes(Value x, int a, int b) {
        int[] perm = new int[owned("transpose", x).rank()];
        for (int i = 0; i < perm.length; i++) {
            perm[i] = i;
        }
        int na = axis("transpose", x, a);
        int nb = axis("transpose", x, b);
        perm[na] = nb;
        perm[nb] = na;
        return transpose(x, perm);
    }

    /** {@code length} elements from {@code start} with stride {@code step} along {@code axis}. */
    public Value slice(Value x, int axis, int start, int length, int step) {
        return apply1(new Op.Slice(axis("slice", x, axis), start, length, step), x);
    }

    /** Contiguous slice {@code [start, start + length)} along {@code axis}. */
    public Value narrow(Value x, int axis, int start, int length) {
        return slice(x, axis, start, length, 1);
    }

    public Value concat(int axis, Value... xs) {
        if (xs.length == 0) {
            throw new ShapeException("[concat] needs at least one input");
        }
        return apply1(new Op.Concat(axis("concat", xs[0], axis)), xs);
    }

    /** Broadcasts to {@code dims} ({@code numpy.broadcast_to}). */
    public Value expand(Value x, int... dims) {
        return apply1(new Op.Expand(ShapeRules.list(dims)), x);
    }

    // ---------------------------------------------------------------- indexing

    public Value gather(Value data, Value indices, int axis) {
        return apply1(new Op.Gather(axis("gather", data, axis)), data, indices);
    }

    public Value scatterAdd(Value data, Value indices, Value updates, int axis) {
        return apply1(new Op.ScatterAdd(axis("scatter_add", data, axis)), data, indices, updates);
    }

    // ---------------------------------------------------------------- attention and positions

    /** Scaled dot-product attention configured by {@code spec} (see {@link Op.Attention#of}). */
    public Value attention(Value q, Value k, Value v, Op.Attention spec) {
        return apply1(spec, q, k, v);
    }

    /** Attention with an additive (float) or keep (bool) mask broadcastable to [B, heads, Sq, Sk]. */
    public Value attention(Value q, Value k, Value v, Value mask, Op.Attention spec) {
        return mask == null ? attention(q, k, v, spec) : apply1(spec, q, k, v, mask);
    }

    /**
     * Attention over a paged KV pool configured by {@code spec} (see {@link Op.PagedAttention}, which states the
     * operands: queries, the pool and spill blocks, the block table, kv lengths and query offsets).
     */
    public Value pagedAttention(Value q, Value pool, Value spill, Value blockTable, Value kvLens, Value queryOffsets,
                                Op.PagedAttention spec) {
        return apply1(spec, q, pool, spill, blockTable, kvLens, queryOffsets);
    }

    public Value rope(Value x, Value cos, Value sin, Op.Rope spec) {
        return apply1(spec, x, cos, sin);
    }

    /** Rotate-half RoPE over whole heads of {@code x [B, S, H*headDim]}. */
    public Value rope(Value x, Value cos, Value sin, int headDim) {
        return rope(x, cos, sin, new Op.Rope(headDim, headDim, false, HeadLayout.BSHD));
    }

    // ---------------------------------------------------------------- convolution and pooling

    /** Convolution configured by {@code spec} (see {@link Op.Conv#of}); {@code bias} may be null. */
    public Value conv(Value x, Value w, Value bias, Op.Conv spec) {
        return bias == null ? apply1(spec, x, w) : apply1(spec, x, w, bias);
    }

    /** 2-d convolution with symmetric padding. */
    public Value conv2d(Value x, Value w, Value bias, int stride, int padding, int dilation, int groups) {
        return conv(x, w, bias, Op.Conv.of(2).withStrides(stride, stride).withPads(padding, padding)
                .withDilations(dilation, dilation).withGroups(groups));
    }

    public Value convTranspose(Value x, Value w, Value bias, Op.ConvTranspose spec) {
        return bias == null ? apply1(spec, x, w) : apply1(spec, x, w, bias);
    }

    public Value pool(Value x, Op.Pool spec) {
        return apply1(spec, x);
    }

    /** Max pool with stride equal to the window, no padding. */
    public Value maxPool(Value x, int... kernel) {
        return pool(x, Op.Pool.of(Op.Pool.Kind.MAX, kernel));
    }

    /** Average pool with stride equal to the window, no padding. */
    public Value avgPool(Value x, int... kernel) {
        return pool(x, Op.Pool.of(Op.Pool.Kind.AVG, kernel));
    }

    // ---------------------------------------------------------------- spectral

    /**
     * A transform of length {@code n} along {@code axis} (negative counts back from the last signal dim, the one
     * before a (re, im) pair dim); see {@link Op.Fft}. {@link Signal} has the numpy-style helpers built on it.
     */
    public Value fft(Value x, FftKind op, int axis, FftNorm norm, int n) {
        int rank = Op.Fft.signalRank(Objects.requireNonNull(op, "op"), owned(op.label(), x).shape());
        return apply1(new Op.Fft(op, axis < 0 ? axis + rank : axis, norm, n), x);
    }

    // ---------------------------------------------------------------- control flow and extension

    /** Runs one of two subgraphs on {@code captures}; see {@link Op.If}. */
    public List<Value> ifElse(Value predicate, Graph thenBranch, Graph elseBranch, Value... captures) {
        List<Value> in = new ArrayList<>();
        in.add(predicate);
        in.addAll(Arrays.asList(captures));
        return apply(new Op.If(thenBranch, elseBranch), in);
    }

    /** Loops {@code body} while {@code cond} holds; see {@link Op.While}. */
    public List<Value> whileLoop(Graph cond, Graph body, long maxIterations, Value... carries) {
        return apply(new Op.While(cond, body, maxIterations), carries);
    }

    /** {@code lax.scan}; see {@link Op.Scan}. */
    public List<Value> scan(Graph body, int length, int numCarries, boolean reverse, Value... carriesThenXs) {
        return apply(new Op.Scan(body, length, numCarries, reverse), carriesThenXs);
    }

    /** A user op with declared output shapes; see {@link Op.Custom}. */
    public List<Value> custom(String opName, Attrs attrs, List<Shape> outputShapes, Value... operands) {
        return apply(new Op.Custom(opName, attrs, outputShapes), operands);
    }

    // ---------------------------------------------------------------- random numbers

    /**
     * Normal samples of {@code shape} (ONNX {@code RandomNormal}) seeded by the compile options; each call
     * gets its own stream, keyed by its node id. See {@link Op.RngNormal}.
     */
    public Value rngNormal(float mean, float scale, Shape shape) {
        return apply1(new Op.RngNormal(mean, scale, shape, 0, false, nodes.size()));
    }

    /** {@link #rngNormal(float, float, Shape)} with its own {@code seed}, as the ONNX {@code seed} attribute. */
    public Value rngNormal(float mean, float scale, Shape shape, long seed) {
        return apply1(new Op.RngNormal(mean, scale, shape, seed, true, nodes.size()));
    }

    /** Uniform samples in {@code [low, high)} of {@code shape} (ONNX {@code RandomUniform}); see {@link Op.RngUniform}. */
    public Value rngUniform(float low, float high, Shape shape) {
        return apply1(new Op.RngUniform(low, high, shape, 0, false, nodes.size()));
    }

    /** {@link #rngUniform(float, float, Shape)} with its own {@code seed}. */
    public Value rngUniform(float low, float high, Shape shape, long seed) {
        return apply1(new Op.RngUniform(low, high, shape, seed, true, nodes.size()));
    }

    // ---------------------------------------------------------------- helpers

    private int axis(String op, Value x, int axis) {
        return ShapeRules.axis(op, axis, owned(op, x).shape());
    }

    private List<Integer> normAxes(String op, Value x, int[] axes) {
        Shape shape = owned(op, x).shape();
        int rank = shape.rank();
        if (axes.length == 0) {
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < rank; i++) {
                all.add(i);
            }
            return all;
        }
        int[] n = new int[axes.length];
        for (int i = 0; i < axes.length; i++) {
            n[i] = ShapeRules.axis(op, axes[i], shape);
        }
        Arrays.sort(n);
        for (int i = 1; i < n.length; i++) {
            if (n[i] == n[i - 1]) {
                throw new ShapeException("[" + op + "] axis " + n[i] + " listed twice in " + Arrays.toString(axes)
                        + " for " + shape);
            }
        }
        return ShapeRules.list(n);
    }
}
