package dev.rlx.onnx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The subset of the ONNX protobuf schema ({@code onnx.proto}, IR version 3 to 8) that import needs, as
 * records, and its parser. Field numbers are those of the ONNX specification. Unknown fields are skipped,
 * known fields of the wrong wire type are errors.
 */
final class OnnxProto {
    private OnnxProto() {}

    /** {@code ModelProto}. */
    record Model(long irVersion, Map<String, Long> opsets, String producer, Graph graph, int functions) {}

    /** {@code GraphProto}. */
    record Graph(String name, List<Node> nodes, List<TensorDef> initializers, List<ValueInfo> inputs,
                 List<ValueInfo> outputs, List<ValueInfo> valueInfo, int sparseInitializers) {}

    /** {@code NodeProto}; {@code index} is its position in the graph, for messages. */
    record Node(int index, String name, String opType, String domain, List<String> inputs, List<String> outputs,
                Map<String, Attribute> attributes) {
        /** {@code node #3 'conv1' (Conv)}. */
        String describe() {
            return "node #" + index + (name.isEmpty() ? "" : " '" + name + "'") + " (" + opType + ")";
        }
    }

    /** {@code AttributeProto.AttributeType}. */
    enum AttrType {
        UNDEFINED, FLOAT, INT, STRING, TENSOR, GRAPH, FLOATS, INTS, STRINGS, TENSORS, GRAPHS, SPARSE_TENSOR,
        SPARSE_TENSORS, TYPE_PROTO, TYPE_PROTOS;

        static AttrType of(int code) {
            return code >= 0 && code < values().length ? values()[code] : UNDEFINED;
        }
    }

    /** {@code AttributeProto}: one of the value fields is set, as {@link #type} says. */
    record Attribute(String name, AttrType type, float f, long i, byte[] s, TensorDef t, Graph g, float[] floats,
                     long[] ints, List<byte[]> strings, List<TensorDef> tensors, List<Graph> graphs, String refName) {}

    /** {@code ValueInfoProto}. */
    record ValueInfo(String name, TypeDef type) {}

    /** What kind of value a {@code TypeProto} describes. */
    enum ValueKind { TENSOR, SEQUENCE, MAP, OPTIONAL, SPARSE_TENSOR, UNKNOWN }

    /**
     * {@code TypeProto}: for tensors the element type and, when {@code hasShape}, the dims: a value
     * ({@code dimParams[i] == null && dims[i] >= 0}), a named symbol ({@code dimParams[i]}) or unknown
     * ({@code dims[i] == -1}, no name).
     */
    record TypeDef(ValueKind kind, int elemType, boolean hasShape, long[] dims, String[] dimParams) {
        static final TypeDef UNKNOWN = new TypeDef(ValueKind.UNKNOWN, 0, false, new long[0], new String[0]);
    }

    // ---------------------------------------------------------------- parsing

    static Model parseModel(byte[] bytes) {
        ProtoReader r = new ProtoReader(bytes, "model");
        long ir = 0;
        Map<String, Long> opsets = new LinkedHashMap<>();
        String producer = "";
        Graph graph = null;
        int functions = 0;
        while (r.next()) {
            switch (r.field()) {
                case 1 -> ir = r.int64();
                case 2 -> producer = r.string();
                case 7 -> graph = r.message("graph", OnnxProto::graph);
                case 8 -> {
                    long[] v = new long[1];
                    String d = r.message("opset_import", q -> {
                        String dom = "";
                        while (q.next()) {
                            switch (q.field()) {
                                case 1 -> dom = q.string();
                                case 2 -> v[0] = q.int64();
                                default -> q.skip();
                            }
                        }
                        return dom;
                    });
                    opsets.put(d.equals("ai.onnx") ? "" : d, v[0]);
                }
                case 25 -> {
                    functions++;
                    r.skip();
                }
                default -> r.skip();
            }
        }
        if (graph == null) {
            throw r.error("the model has no graph (field 7)");
        }
        return new Model(ir, opsets, producer, graph, functions);
    }

    static TensorDef parseTensor(byte[] bytes, String what) {
        return tensor(new ProtoReader(bytes, what));
    }

    private static Graph graph(ProtoReader r) {
        String name = "";
        List<Node> nodes = new ArrayList<>();
        List<TensorDef> inits = new ArrayList<>();
        List<ValueInfo> inputs = new ArrayList<>();
        List<ValueInfo> outputs = new ArrayList<>();
        List<ValueInfo> info = new ArrayList<>();
        int sparse = 0;
        while (r.next()) {
            switch (r.field()) {
                case 1 -> {
                    int index = nodes.size();
                    nodes.add(r.message("node #" + index, q -> node(q, index)));
                }
                case 2 -> {
                    name = r.string();
                    r.rename("graph '" + name + "'");
                }
                case 5 -> inits.add(r.message("initializer #" + inits.size(), OnnxProto::tensor));
                case 11 -> inputs.add(r.message("input #" + inputs.size(), OnnxProto::valueInfo));
                case 12 -> outputs.add(r.message("output #" + outputs.size(), OnnxProto::valueInfo));
                case 13 -> info.add(r.message("value_info #" + info.size(), OnnxProto::valueInfo));
                case 15 -> {
                    sparse++;
                    r.skip();
                }
                default -> r.skip();
            }
        }
        return new Graph(name, nodes, inits, inputs, outputs, info, sparse);
    }

    private static Node node(ProtoReader r, int index) {
        List<String> in = new ArrayList<>();
        List<String> out = new ArrayList<>();
        String name = "";
        String op = "";
        String domain = "";
        Map<String, Attribute> attrs = new LinkedHashMap<>();
        while (r.next()) {
            switch (r.field()) {
                case 1 -> in.add(r.string());
                case 2 -> out.add(r.string());
                case 3 -> {
                    name = r.string();
                    r.rename("node #" + index + " '" + name + "'");
                }
                case 4 -> op = r.string();
                case 5 -> {
                    Attribute a = r.message("attribute #" + attrs.size(), OnnxProto::attribute);
                    if (attrs.putIfAbsent(a.name(), a) != null) {
                        throw r.error("attribute '" + a.name() + "' appears twice");
                    }
                }
                case 7 -> domain = r.string();
                default -> r.skip();
            }
        }
        if (op.isEmpty()) {
            throw r.error("the node has no op_type");
        }
        return new Node(index, name, op, domain.equals("ai.onnx") ? "" : domain, in, out, attrs);
    }

    private static Attribute attribute(ProtoReader r) {
        String name = "";
        int type = -1;
        float f = 0;
        long i = 0;
        byte[] s = null;
        TensorDef t = null;
        Graph g = null;
        ProtoReader.LongList floats = new ProtoReader.LongList();
        ProtoReader.LongList ints = new ProtoReader.LongList();
        List<byte[]> strings = new ArrayList<>();
        List<TensorDef> tensors = new ArrayList<>();
        List<Graph> graphs = new ArrayList<>();
        String ref = "";
        AttrType seen = AttrType.UNDEFINED; // for files that leave out the type field (IR version < 3)
        while (r.next()) {
            switch (r.field()) {
                case 1 -> {
                    name = r.string();
                    r.rename("attribute '" + name + "'");
                }
                case 2 -> { f = r.f32(); seen = AttrType.FLOAT; }
                case 3 -> { i = r.int64(); seen = AttrType.INT; }
                case 4 -> { s = r.bytes(); seen = AttrType.STRING; }
                case 5 -> { t = r.message("t", OnnxProto::tensor); seen = AttrType.TENSOR; }
                case 6 -> { g = r.message("g", OnnxProto::graph); seen = AttrType.GRAPH; }
                case 7 -> { r.floats(floats); seen = AttrType.FLOATS; }
                case 8 -> { r.longs(ints); seen = AttrType.INTS; }
                case 9 -> { strings.add(r.bytes()); seen = AttrType.STRINGS; }
                case 10 -> { tensors.add(r.message("tensors #" + tensors.size(), OnnxProto::tensor)); seen = AttrType.TENSORS; }
                case 11 -> { graphs.add(r.message("graphs #" + graphs.size(), OnnxProto::graph)); seen = AttrType.GRAPHS; }
                case 20 -> type = r.int32();
                case 21 -> ref = r.string();
                default -> r.skip();
            }
        }
        if (name.isEmpty()) {
            throw r.error("the attribute has no name");
        }
        AttrType at = type < 0 ? seen : AttrType.of(type);
        float[] fs = new float[floats.size()];
        for (int k = 0; k < fs.length; k++) {
            fs[k] = Float.intBitsToFloat((int) floats.get(k));
        }
        return new Attribute(name, at, f, i, s, t, g, fs, ints.toArray(), strings, tensors, graphs, ref);
    }

    private static ValueInfo valueInfo(ProtoReader r) {
        String name = "";
        TypeDef type = TypeDef.UNKNOWN;
        while (r.next()) {
            switch (r.field()) {
                case 1 -> {
                    name = r.string();
                    r.rename("value '" + name + "'");
                }
                case 2 -> type = r.message("type", OnnxProto::type);
                default -> r.skip();
            }
        }
        return new ValueInfo(name, type);
    }

    private static TypeDef type(ProtoReader r) {
        TypeDef t = TypeDef.UNKNOWN;
        while (r.next()) {
            switch (r.field()) {
                case 1 -> t = r.message("tensor_type", q -> tensorType(q, ValueKind.TENSOR));
                case 4 -> { r.skip(); t = new TypeDef(ValueKind.SEQUENCE, 0, false, new long[0], new String[0]); }
                case 5 -> { r.skip(); t = new TypeDef(ValueKind.MAP, 0, false, new long[0], new String[0]); }
                case 8 -> t = r.message("sparse_tensor_type", q -> tensorType(q, ValueKind.SPARSE_TENSOR));
                case 9 -> { r.skip(); t = new TypeDef(ValueKind.OPTIONAL, 0, false, new long[0], new String[0]); }
                default -> r.skip();
            }
        }
        return t;
    }

    private static TypeDef tensorType(ProtoReader r, ValueKind kind) {
        int elem = 0;
        List<Long> dims = null;
        List<String> params = null;
        while (r.next()) {
            switch (r.field()) {
                case 1 -> elem = r.int32();
                case 2 -> {
                    List<Long> d = new ArrayList<>();
                    List<String> p = new ArrayList<>();
                    r.message("shape", q -> {
                        while (q.next()) {
                            if (q.field() == 1) {
                                q.message("dim #" + d.size(), dq -> {
                                    long v = -1;
                                    String param = null;
                                    while (dq.next()) {
                                        switch (dq.field()) {
                                            case 1 -> v = dq.int64();
                                            case 2 -> param = dq.string();
                                            default -> dq.skip();
                                        }
                                    }
                                    if (v < -1) {
                                        throw dq.error("dim_value " + v + " is negative");
                                    }
                                    d.add(param != null ? -1 : v);
                                    p.add(param);
                                    return null;
                                });
                            } else {
                                q.skip();
                            }
                        }
                        return null;
                    });
                    dims = d;
                    params = p;
                }
                default -> r.skip();
            }
        }
        boolean has = dims != null;
        long[] dv = has ? dims.stream().mapToLong(Long::longValue).toArray() : new long[0];
        String[] pv = has ? params.toArray(String[]::new) : new String[0];
        return new TypeDef(kind, elem, has, dv, pv);
    }

    private static TensorDef tensor(ProtoReader r) {
        TensorDef.Builder b = new TensorDef.Builder();
        ProtoReader.LongList dims = new ProtoReader.LongList();
        while (r.next()) {
            switch (r.field()) {
                case 1 -> r.longs(dims);
                case 2 -> b.dataType = r.int32();
                case 4 -> r.floats(b.typed(4, r));
                case 5 -> r.longs(b.typed(5, r));
                case 6 -> { r.skip(); b.strings++; }
                case 7 -> r.longs(b.typed(7, r));
                case 8 -> {
                    b.name = r.string();
                    r.rename("tensor '" + b.name + "'");
                }
                case 9 -> b.raw = r.bytes();
                case 10 -> r.doubles(b.typed(10, r));
                case 11 -> r.longs(b.typed(11, r));
                case 13 -> {
                    String[] kv = r.message("external_data", q -> {
                        String k = "";
                        String v = "";
                        while (q.next()) {
                            switch (q.field()) {
                                case 1 -> k = q.string();
                                case 2 -> v = q.string();
                                default -> q.skip();
                            }
                        }
                        return new String[] {k, v};
                    });
                    b.external.put(kv[0], kv[1]);
                }
                case 14 -> b.location = r.int32();
                default -> r.skip();
            }
        }
        b.dims = dims.toArray();
        b.where = r.where();
        return b.build();
    }
}
