package dev.rlx.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * Test-only: rebuilds a graph node by node through {@link Graph#apply}, optionally changing one node's op or
 * operands or the output list on the way. Used to make "the same graph except for one thing".
 */
final class GraphEdits {
    private GraphEdits() {}

    /** How to change the copy; each hook gets the original and returns the replacement. */
    record Edit(int node, UnaryOperator<Op> op, BiFunction<List<Value>, Graph, List<Value>> operands,
                BiFunction<List<Value>, Graph, List<Value>> outputs) {
        static Edit none() {
            return new Edit(-1, o -> o, (in, g) -> in, (out, g) -> out);
        }

        static Edit op(int node, UnaryOperator<Op> op) {
            return new Edit(node, op, (in, g) -> in, (out, g) -> out);
        }

        static Edit operands(int node, BiFunction<List<Value>, Graph, List<Value>> operands) {
            return new Edit(node, o -> o, operands, (out, g) -> out);
        }

        static Edit outputs(BiFunction<List<Value>, Graph, List<Value>> outputs) {
            return new Edit(-1, o -> o, (in, g) -> in, outputs);
        }
    }

    /** A copy of {@code src} named {@code name} with {@code edit} applied; display names are copied. */
    static Graph copy(Graph src, String name, Edit edit) {
        Graph g = new Graph(name);
        List<List<Value>> produced = new ArrayList<>();
        for (Node n : src.nodes()) {
            List<Value> in = n.inputs().stream().map(v -> produced.get(v.nodeId()).get(v.outputIndex())).toList();
            Op op = n.op();
            if (n.id() == edit.node()) {
                op = edit.op().apply(op);
                in = edit.operands().apply(in, g);
            }
            List<Value> outs = g.apply(op, in);
            boolean named = n.name() != null && !(n.op() instanceof Op.Input || n.op() instanceof Op.Param);
            if (named) {
                g.name(outs.get(0), n.name());
            }
            produced.add(outs);
        }
        List<Value> outs = src.outputs().stream().map(v -> produced.get(v.nodeId()).get(v.outputIndex())).toList();
        g.setOutputs(edit.outputs().apply(outs, g));
        return g;
    }

    /**
     * {@code op} with field {@code index} changed to a different value of its type (record equality then
     * fails), or null when this field cannot be changed this way.
     */
    static Op withFieldChanged(Op op, int index, Random r) {
        OpFields.OpClass oc = OpFields.of(op);
        OpFields.Field f = oc.fields().get(index);
        Object v = f.get(op);
        Object nv = switch (f.type()) {
            case INT -> (Integer) v + (r.nextBoolean() ? 1 : -1);
            case LONG -> (Long) v + 1;
            case FLOAT -> (Float) v + 1f;
            case DOUBLE -> (Double) v + 1;
            case BOOLEAN -> !(Boolean) v;
            case STRING -> v + "_";
            case ENUM -> {
                Object[] constants = f.javaType().getEnumConstants();
                yield constants[(((Enum<?>) v).ordinal() + 1 + r.nextInt(constants.length - 1)) % constants.length];
            }
            case SHAPE -> changed((Shape) v, r);
            case TENSOR -> {
                Tensor t = (Tensor) v;
                if (t.byteLength() == 0) {
                    yield Tensor.ofBytes(Shape.of(t.dtype(), 1), new byte[t.dtype().byteSize()]);
                }
                byte[] b = t.bytes();
                int i = r.nextInt(b.length);
                b[i] ^= (byte) (t.dtype() == DType.BOOL ? 1 : 1 << r.nextInt(8));
                yield Tensor.ofBytes(t.shape(), b);
            }
            case ATTRS -> {
                java.util.Map<String, Object> m = new java.util.TreeMap<>(((Attrs) v).asMap());
                m.put("extra", (long) r.nextInt(3));
                yield Attrs.of(m);
            }
            case GRAPH -> null; // see withSubgraphChanged
            case PROGRAM -> {
                // append a step: a different program over the same inputs
                ElementwiseProgram p = (ElementwiseProgram) v;
                List<ElementwiseProgram.Step> steps = new ArrayList<>(p.steps());
                steps.add(new ElementwiseProgram.Step(UnaryKind.NEG, null, p.inputs() + steps.size() - 1, -1));
                yield ElementwiseProgram.of(p.inputs(), steps);
            }
            case INT_LIST -> {
                @SuppressWarnings("unchecked")
                List<Integer> l = new ArrayList<>((List<Integer>) v);
                if (l.isEmpty()) {
                    yield List.of(0);
                }
                int i = r.nextInt(l.size());
                l.set(i, l.get(i) + 1);
                yield l;
            }
            case SHAPE_LIST -> {
                @SuppressWarnings("unchecked")
                List<Shape> l = new ArrayList<>((List<Shape>) v);
                int i = r.nextInt(l.size());
                l.set(i, changed(l.get(i), r));
                yield l;
            }
        };
        if (nv == null) {
            return null;
        }
        Object[] args = new Object[oc.fields().size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = i == index ? nv : oc.fields().get(i).get(op);
        }
        try {
            return oc.create(args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            return null; // the changed value breaks the op's own constraints
        }
    }

    /** {@code op} with subgraph field {@code index} replaced by a copy whose node {@code node} is changed. */
    static Op withSubgraphChanged(Op op, int index, Random r) {
        OpFields.OpClass oc = OpFields.of(op);
        Graph sub = (Graph) oc.fields().get(index).get(op);
        Graph changed = null;
        for (int attempt = 0; attempt < 10 && changed == null; attempt++) {
            Node n = sub.node(r.nextInt(sub.size()));
            List<OpFields.Field> fields = OpFields.of(n.op()).fields();
            if (fields.isEmpty()) {
                continue;
            }
            int fi = r.nextInt(fields.size());
            Op edited = fields.get(fi).type() == OpFields.FieldType.GRAPH ? withSubgraphChanged(n.op(), fi, r)
                    : withFieldChanged(n.op(), fi, r);
            if (edited == null || edited.equals(n.op())) {
                continue;
            }
            try {
                changed = copy(sub, sub.name(), Edit.op(n.id(), o -> edited));
            } catch (RlxException | IllegalArgumentException e) {
                changed = null;
            }
        }
        if (changed == null) {
            return null;
        }
        Object[] args = new Object[oc.fields().size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = i == index ? changed : oc.fields().get(i).get(op);
        }
        try {
            return oc.create(args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            return null;
        }
    }

    private static Shape changed(Shape s, Random r) {
        if (s.rank() == 0 || r.nextBoolean()) {
            DType[] all = DType.values();
            return s.withDtype(all[(s.dtype().ordinal() + 1 + r.nextInt(all.length - 1)) % all.length]);
        }
        int axis = r.nextInt(s.rank());
        return s.withDim(axis, s.dim(axis) + 1);
    }
}
