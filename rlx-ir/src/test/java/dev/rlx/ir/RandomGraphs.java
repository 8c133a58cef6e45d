package dev.rlx.ir;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Test-only generator of valid random graphs from a seed: inputs, params and constants, then a random
 * sequence of element-wise, matmul, reduction, movement, indexing, normalisation, attention, rope, conv,
 * pool, control-flow (If/While/Scan with generated subgraphs) and custom ops, each applied to operands whose
 * shapes it accepts. The same seed always gives the same graph; {@code graphName} and {@code displayNames}
 * change only names, never structure.
 */
final class RandomGraphs {
    private static final DType[] FLOATS = {DType.F32, DType.F32, DType.F32, DType.F16, DType.BF16, DType.F64};
    private static final UnaryKind[] FLOAT_UNARY = java.util.Arrays.stream(UnaryKind.values())
            .filter(k -> k != UnaryKind.NOT).toArray(UnaryKind[]::new);
    private static final BinaryKind[] FLOAT_BINARY = {BinaryKind.ADD, BinaryKind.SUB, BinaryKind.MUL, BinaryKind.DIV,
            BinaryKind.POW, BinaryKind.MAX, BinaryKind.MIN, BinaryKind.MOD};

    private final Random r;
    private final Graph g;
    private final boolean controlFlow;
    private final int depth;
    /** Float values ops can consume. */
    private final List<Value> floats = new ArrayList<>();
    /** Every value produced, for choosing outputs. */
    private final List<Value> all = new ArrayList<>();
    private int names;

    private RandomGraphs(Random r, Graph g, boolean controlFlow, int depth) {
        this.r = r;
        this.g = g;
        this.controlFlow = controlFlow;
        this.depth = depth;
    }

    /** A random graph named "rg", with control flow, without display names. */
    static Graph build(long seed) {
        return build(seed, "rg", false, true);
    }

    static Graph build(long seed, String graphName, boolean displayNames, boolean controlFlow) {
        Graph g = new Graph(graphName);
        RandomGraphs gen = new RandomGraphs(new Random(seed), g, controlFlow, 0);
        gen.fill();
        if (displayNames) {
            Random nr = new Random(~seed); // separate stream: names never change the structure
            for (Node n : g.nodes()) {
                boolean source = n.op() instanceof Op.Input || n.op() instanceof Op.Param; // named by their op
                if (nr.nextInt(3) == 0 && !source) {
                    g.name(n.outputs().get(0), "node_" + n.id() + "_" + Integer.toHexString(nr.nextInt()));
                }
            }
        }
        return g;
    }

    private void fill() {
        int inputs = 1 + r.nextInt(3);
        for (int i = 0; i < inputs; i++) {
            add(g.input(fresh("in"), shape(floatType())));
        }
        if (r.nextBoolean()) {
            add(g.param(fresh("p"), shape(floatType())));
        }
        if (r.nextBoolean()) {
            add(constant(shape(anyType())));
        }
        int steps = 2 + r.nextInt(depth == 0 ? 12 : 4);
        for (int i = 0; i < steps; i++) {
            step();
        }
        List<Value> outs = new ArrayList<>();
        outs.add(all.get(all.size() - 1));
        for (int i = r.nextInt(3); i > 0; i--) {
            outs.add(all.get(r.nextInt(all.size())));
        }
        g.setOutputs(outs);
    }

    // ---------------------------------------------------------------- pieces

    private String fresh(String prefix) {
        return prefix + (names++);
    }

    private void add(Value v) {
        all.add(v);
        if (v.dtype().isFloat()) {
            floats.add(v);
        }
    }

    private DType floatType() {
        return FLOATS[r.nextInt(FLOATS.length)];
    }

    private DType anyType() {
        return DType.values()[r.nextInt(DType.values().length)];
    }

    private int dim() {
        return r.nextInt(20) == 0 ? 0 : 1 + r.nextInt(4);
    }

    private Shape shape(DType t) {
        int[] d = new int[r.nextInt(4)];
        for (int i = 0; i < d.length; i++) {
            d[i] = dim();
        }
        return Shape.of(t, d);
    }

    private Value constant(Shape s) {
        return g.constant(tensor(s, r));
    }

    static Tensor tensor(Shape s, Random r) {
        byte[] b = new byte[Math.toIntExact(s.byteSize())];
        r.nextBytes(b);
        if (s.dtype() == DType.BOOL) {
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (b[i] & 1);
            }
        }
        return Tensor.ofBytes(s, b);
    }

    /** A new input at top level; subgraphs take data only through their inputs, so there a constant. */
    private Value newInput(String prefix, Shape s) {
        return depth == 0 ? g.input(fresh(prefix), s) : constant(s);
    }

    /** A new param at top level; a constant inside subgraphs (which may not declare params). */
    private Value newParam(String prefix, Shape s) {
        return depth == 0 ? g.param(fresh(prefix), s) : constant(s);
    }

    private Value pick() {
        return floats.get(r.nextInt(floats.size()));
    }

    /** A float value of rank >= 1, or null. */
    private Value pickRanked() {
        List<Value> c = floats.stream().filter(v -> v.rank() >= 1).toList();
        return c.isEmpty() ? null : c.get(r.nextInt(c.size()));
    }

    private int axisOf(Value v) {
        int a = r.nextInt(v.rank());
        return r.nextBoolean() ? a : a - v.rank();
    }

    // ---------------------------------------------------------------- steps

    private void step() {
        int choice = r.nextInt(controlFlow && depth < 2 ? 27 : 24);
        Value x = pick();
        Value xr = pickRanked();
        switch (choice) {
            case 0, 1 -> add(g.unary(FLOAT_UNARY[r.nextInt(FLOAT_UNARY.length)], x));
            case 2, 3 -> add(binary(x));
            case 4 -> {
                if (xr != null) {
                    int k = xr.dim(-1);
                    Shape ws = r.nextBoolean() ? Shape.of(xr.dtype(), k, 1 + r.nextInt(4)) : Shape.of(xr.dtype(), k);
                    add(g.matmul(xr, r.nextBoolean() ? newParam("w", ws) : constant(ws)));
                }
            }
            case 5 -> {
                List<Integer> axes = new ArrayList<>();
                for (int i = 0; i < x.rank(); i++) {
                    if (r.nextBoolean()) {
                        axes.add(r.nextBoolean() ? i : i - x.rank());
                    }
                }
                Collections.shuffle(axes, r);
                ReduceKind kind = ReduceKind.values()[r.nextInt(ReduceKind.values().length)];
                add(g.reduce(kind, x, r.nextBoolean(), axes.stream().mapToInt(Integer::intValue).toArray()));
            }
            case 6 -> add(r.nextBoolean() ? g.reshape(x, -1) : g.reshape(x, 1, -1));
            case 7 -> {
                List<Integer> perm = new ArrayList<>();
                for (int i = 0; i < x.rank(); i++) {
                    perm.add(i);
                }
                Collections.shuffle(perm, r);
                add(g.transpose(x, perm.stream().mapToInt(Integer::intValue).toArray()));
            }
            case 8 -> {
                if (xr != null) {
                    Value[] parts = new Value[1 + r.nextInt(3)];
                    java.util.Arrays.fill(parts, xr);
                    add(g.concat(axisOf(xr), parts));
                }
            }
            case 9 -> {
                if (xr != null) {
                    int axis = r.nextInt(xr.rank());
                    int n = xr.dim(axis);
                    if (n > 0) {
                        int step = r.nextBoolean() ? 1 + r.nextInt(2) : -1 - r.nextInt(2);
                        int start = r.nextInt(n);
                        int room = step > 0 ? (n - 1 - start) / step + 1 : start / -step + 1;
                        add(g.slice(xr, axis, start, r.nextInt(room + 1), step));
                    }
                }
            }
            case 10 -> {
                if (xr != null) {
                    add(r.nextBoolean() ? g.softmax(xr, axisOf(xr)) : g.logSoftmax(xr, axisOf(xr)));
                }
            }
            case 11 -> add(g.cast(x, floatType()));
            case 12 -> {
                Value c = g.compare(CompareKind.values()[r.nextInt(6)], x, g.scalar(x.dtype(), r.nextInt(5)));
                all.add(c);
                add(g.where(c, x, g.scalar(x.dtype(), -1)));
            }
            case 13 -> {
                if (xr != null) {
                    int axis = r.nextInt(xr.rank());
                    List<Value> tk = g.topK(xr, r.nextInt(xr.dim(axis) + 1), axis, r.nextBoolean());
                    add(tk.get(0));
                    all.add(tk.get(1));
                }
            }
            case 14 -> {
                if (xr != null && xr.dim(0) > 0) {
                    all.add(r.nextBoolean() ? g.argMax(xr, 0, r.nextBoolean()) : g.argMin(xr, 0, r.nextBoolean()));
                }
            }
            case 15 -> {
                if (xr != null) {
                    add(g.cumsum(xr, axisOf(xr), r.nextBoolean(), r.nextBoolean()));
                }
            }
            case 16 -> {
                if (xr != null) {
                    int axis = r.nextInt(xr.rank());
                    Shape gs = Shape.of(xr.dtype(), xr.shape().dimList().subList(axis, xr.rank()));
                    Value gamma = constant(gs);
                    add(r.nextBoolean() ? g.layerNorm(xr, gamma, r.nextBoolean() ? null : constant(gs), axis, 1e-5f)
                            : g.rmsNorm(xr, gamma, null, axis, 1e-6f));
                }
            }
            case 17 -> {
                int[] d = new int[x.rank() + 1];
                d[0] = 2;
                for (int i = 0; i < x.rank(); i++) {
                    d[i + 1] = x.dim(i);
                }
                add(g.expand(x, d));
            }
            case 18 -> {
                if (xr != null && xr.dim(0) > 0) {
                    long[] idx = new long[1 + r.nextInt(3)];
                    for (int i = 0; i < idx.length; i++) {
                        idx[i] = r.nextInt(xr.dim(0));
                    }
                    add(g.gather(xr, g.constant(Tensor.of(idx, idx.length)), 0));
                }
            }
            case 19 -> attention();
            case 20 -> {
                int heads = 1 + r.nextInt(2);
                int headDim = 2 * (1 + r.nextInt(2));
                int seq = 1 + r.nextInt(3);
                Value q = newInput("q", Shape.of(DType.F32, 1, seq, heads * headDim));
                Value cos = constant(Shape.of(DType.F32, seq, headDim / 2));
                add(g.rope(q, cos, cos, headDim));
            }
            case 21 -> {
                Value img = newInput("img", Shape.of(DType.F32, 1, 2, 4 + r.nextInt(3), 5));
                Value w = newParam("k", Shape.of(DType.F32, 3, 2, 1 + r.nextInt(3), 2));
                Value conv = g.conv2d(img, w, r.nextBoolean() ? null : constant(Shape.of(DType.F32, 3)),
                        1 + r.nextInt(2), r.nextInt(2), 1, 1);
                add(r.nextBoolean() ? conv : g.pool(conv, Op.Pool.of(Op.Pool.Kind.values()[r.nextInt(2)], 1, 2)
                        .withCeilMode(r.nextBoolean())));
            }
            case 22 -> {
                Attrs attrs = Attrs.of("k", (long) r.nextInt(9), "alpha", r.nextDouble(), "flag", r.nextBoolean(),
                        "mode", "m" + r.nextInt(3), "sizes", List.of((long) r.nextInt(5)), "ws", List.of(r.nextDouble()));
                List<Value> outs = g.custom("op" + r.nextInt(3), attrs, List.of(shape(floatType()), shape(DType.I32)), x);
                add(outs.get(0));
                all.add(outs.get(1));
            }
            case 23 -> add(constant(shape(anyType())));
            case 24 -> ifElse(x);
            case 25 -> whileLoop(x);
            case 26 -> scan(xr);
            default -> throw new AssertionError(choice);
        }
    }

    private Value binary(Value x) {
        Value y;
        int how = r.nextInt(3);
        if (how == 0) {
            y = x;
        } else {
            // a constant broadcasting against x: a suffix of x's dims with some set to 1
            int keep = r.nextInt(x.rank() + 1);
            int[] d = new int[keep];
            for (int i = 0; i < keep; i++) {
                d[i] = r.nextBoolean() ? 1 : x.dim(x.rank() - keep + i);
            }
            y = how == 1 ? constant(Shape.of(x.dtype(), d)) : newInput("b", Shape.of(x.dtype(), d));
        }
        BinaryKind k = FLOAT_BINARY[r.nextInt(FLOAT_BINARY.length)];
        return r.nextBoolean() ? g.binary(k, x, y) : g.binary(k, y, x);
    }

    private void attention() {
        int kv = 1 + r.nextInt(2);
        int heads = kv * (1 + r.nextInt(2));
        int headDim = 1 + r.nextInt(3);
        int sq = 1 + r.nextInt(3);
        int sk = 1 + r.nextInt(3);
        Op.Attention spec = Op.Attention.of(heads, kv, headDim);
        spec = switch (r.nextInt(3)) {
            case 0 -> spec.causal();
            case 1 -> spec.slidingWindow(1 + r.nextInt(3));
            default -> spec;
        };
        if (r.nextBoolean()) {
            spec = spec.withSoftcap(30f).withScale(0.25f);
        }
        Value q = newInput("q", Shape.of(DType.F32, 1, sq, heads * headDim));
        Value k = newInput("k", Shape.of(DType.F32, 1, sk, kv * headDim));
        Value mask = r.nextBoolean() ? null : newInput("m", Shape.of(DType.BOOL, sq, sk));
        add(g.attention(q, k, k, mask, spec));
    }

    // ---------------------------------------------------------------- control flow

    /** A random subgraph taking {@code inputs}; its outputs are whatever its generator chose. */
    private Graph subgraph(String name, List<Shape> inputs) {
        Graph s = new Graph(name);
        RandomGraphs sub = new RandomGraphs(r, s, controlFlow, depth + 1);
        for (Shape in : inputs) {
            sub.add(s.input(sub.fresh("a"), in));
        }
        int steps = 1 + r.nextInt(4);
        for (int i = 0; i < steps; i++) {
            sub.step();
        }
        s.setOutputs(sub.all.get(sub.all.size() - 1));
        return s;
    }

    /** A subgraph taking {@code inputs} and returning shape-preserving functions of the first. */
    private Graph preserving(String name, List<Shape> inputs) {
        Graph s = new Graph(name);
        Value v = s.input("c0", inputs.get(0));
        for (int i = 1; i < inputs.size(); i++) {
            s.input("c" + i, inputs.get(i));
        }
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
            v = r.nextBoolean() ? s.unary(FLOAT_UNARY[r.nextInt(FLOAT_UNARY.length)], v) : s.add(v, v);
        }
        List<Value> outs = new ArrayList<>();
        outs.add(v);
        for (int i = 1; i < inputs.size(); i++) {
            outs.add(s.input("c" + i));
        }
        s.setOutputs(outs);
        return s;
    }

    private void ifElse(Value x) {
        Graph then = subgraph(fresh("then"), List.of(x.shape()));
        // else returns constants of then's output shapes, so the branches always agree
        Graph other = new Graph(fresh("else"));
        other.input("a", x.shape());
        other.setOutputs(then.outputShapes().stream().map(sh -> other.constant(tensor(sh, r))).toList());
        Value pred = r.nextBoolean() ? newInput("pred", Shape.scalar(DType.BOOL))
                : g.lt(g.reduceSum(x, false), g.scalar(x.dtype(), 1));
        for (Value v : g.ifElse(pred, then, other, x)) {
            add(v);
        }
    }

    private void whileLoop(Value x) {
        List<Shape> carries = new ArrayList<>(List.of(x.shape()));
        if (r.nextBoolean()) {
            carries.add(Shape.scalar(DType.I32));
        }
        Graph cond = new Graph(fresh("cond"));
        Value c0 = cond.input("c0", carries.get(0));
        for (int i = 1; i < carries.size(); i++) {
            cond.input("c" + i, carries.get(i));
        }
        cond.setOutputs(cond.lt(cond.reduceMax(c0, false), cond.scalar(c0.dtype(), 10)));
        Graph body = preserving(fresh("body"), carries);
        Value[] in = new Value[carries.size()];
        in[0] = x;
        for (int i = 1; i < in.length; i++) {
            in[i] = g.scalar(DType.I32, i);
        }
        List<Value> outs = g.whileLoop(cond, body, r.nextBoolean() ? -1 : r.nextInt(50), in);
        add(outs.get(0));
        all.addAll(outs.subList(1, outs.size()));
    }

    private void scan(Value xs) {
        if (xs == null) {
            return;
        }
        Shape carry = Shape.scalar(xs.dtype());
        Shape step = Shape.of(xs.dtype(), xs.shape().dimList().subList(1, xs.rank()));
        Graph body = new Graph(fresh("scan"));
        Value c = body.input("c", carry);
        Value t = body.input("x", step);
        Value y = body.unary(FLOAT_UNARY[r.nextInt(FLOAT_UNARY.length)], t);
        body.setOutputs(body.add(c, body.reduceSum(t, false)), y);
        List<Value> outs = g.scan(body, xs.dim(0), 1, r.nextBoolean(), g.scalar(xs.dtype(), 0), xs);
        outs.forEach(this::add);
    }
}
