package dev.rlx.ir;

import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Graph to bytes and back. The format is versioned and self-contained (constants and subgraphs are
 * included). Reading treats the bytes as untrusted: every count, length and reference is checked against
 * what remains, and any problem is a {@link GraphFormatException} giving the byte offset, never an
 * out-of-bounds or out-of-memory error.
 *
 * <pre>
 * file   := "RLXG" u16:version graph
 * graph  := str:name u32:nodeCount node* u32:outputCount ref*
 * node   := str:opClass field* u32:inputCount ref* u8:hasName [str:name]
 * ref    := u32:nodeId u32:outputIndex
 * </pre>
 * Fields are written in record-component order by type (see {@link OpFields}); integers big-endian.
 */
public final class GraphSerializer {
    private static final byte[] MAGIC = {'R', 'L', 'X', 'G'};
    /** Bumped whenever the byte layout or an op's fields change. */
    public static final int VERSION = 1;
    private static final int MAX_DEPTH = 32;

    private GraphSerializer() {}

    public static byte[] toBytes(Graph g) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MAGIC);
            out.writeShort(VERSION);
            new Writer(out, true).graph(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * SHA-256 (hex) of the canonical bytes without graph and node names: graphs built the same way share a
     * fingerprint; any change of op, attribute, shape, constant, edge or input name changes it.
     */
    public static String fingerprint(Graph g) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeShort(VERSION);
                new Writer(out, false).graph(g);
            }
            return HexFormat.of().formatHex(sha.digest(bytes.toByteArray()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a graph written by {@link #toBytes}, within {@link Limits#defaults()}. */
    public static Graph fromBytes(byte[] data) {
        return fromBytes(data, Limits.defaults());
    }

    /**
     * Reads a graph written by {@link #toBytes}. Besides the format checks, the nodes of the graph and its
     * subgraphs together are bounded by {@link Limits.Kind#GRAPH_NODES} (checked when a node count is read) and
     * every value's size by {@link Limits.Kind#TENSOR_BYTES} (checked as each node is added), so one flipped bit
     * in a dim cannot make the graph ask for tens of GB when it is compiled.
     *
     * @throws GraphFormatException when the bytes are malformed
     * @throws LimitExceededException when the graph is larger than {@code limits} allow
     */
    public static Graph fromBytes(byte[] data, Limits limits) {
        Reader r = new Reader(data, limits);
        for (int i = 0; i < MAGIC.length; i++) {
            if (r.u8("magic") != MAGIC[i]) {
                throw new GraphFormatException(i, "not an RLX graph (bad magic)");
            }
        }
        int version = r.u16("version");
        if (version != VERSION) {
            throw new GraphFormatException(4, "unsupported version " + version + " (this build reads " + VERSION + ")");
        }
        Graph g = r.graph(0);
        if (r.pos != data.length) {
            throw new GraphFormatException(r.pos, (data.length - r.pos) + " trailing bytes after the graph");
        }
        return g;
    }

    // ---------------------------------------------------------------- writing

    private record Writer(DataOutputStream out, boolean withNames) {
        void graph(Graph g) throws IOException {
            str(withNames ? g.name() : "");
            out.writeInt(g.size());
            for (Node n : g.nodes()) {
                OpFields.OpClass oc = OpFields.of(n.op());
                str(oc.type().getSimpleName());
                for (OpFields.Field f : oc.fields()) {
                    field(f.type(), f.get(n.op()));
                }
                out.writeInt(n.inputs().size());
                for (Value v : n.inputs()) {
                    ref(v);
                }
                boolean named = withNames && n.name() != null && !(n.op() instanceof Op.Input || n.op() instanceof Op.Param);
                out.writeByte(named ? 1 : 0);
                if (named) {
                    str(n.name());
                }
            }
            out.writeInt(g.outputs().size());
            for (Value v : g.outputs()) {
                ref(v);
            }
        }

        void ref(Value v) throws IOException {
            out.writeInt(v.nodeId());
            out.writeInt(v.outputIndex());
        }

        void str(String s) throws IOException {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.writeInt(b.length);
            out.write(b);
        }

        void shape(Shape s) throws IOException {
            str(s.dtype().name());
            out.writeInt(s.rank());
            for (int d : s.dims()) {
                out.writeInt(d);
            }
        }

        @SuppressWarnings("unchecked")
        void field(OpFields.FieldType type, Object v) throws IOException {
            switch (type) {
                case INT -> out.writeInt((Integer) v);
                case LONG -> out.writeLong((Long) v);
                case FLOAT -> out.writeFloat((Float) v);
                case DOUBLE -> out.writeDouble((Double) v);
                case BOOLEAN -> out.writeByte((Boolean) v ? 1 : 0);
                case STRING -> str((String) v);
                case ENUM -> str(((Enum<?>) v).name());
                case SHAPE -> shape((Shape) v);
                case TENSOR -> {
                    Tensor t = (Tensor) v;
                    shape(t.shape());
                    out.writeInt(t.byteLength());
                    out.write(t.bytes());
                }
                case ATTRS -> attrs((Attrs) v);
                case GRAPH -> graph((Graph) v);
                case INT_LIST -> {
                    List<Integer> l = (List<Integer>) v;
                    out.writeInt(l.size());
                    for (int x : l) {
                        out.writeInt(x);
                    }
                }
                case SHAPE_LIST -> {
                    List<Shape> l = (List<Shape>) v;
                    out.writeInt(l.size());
                    for (Shape s : l) {
                        shape(s);
                    }
                }
                case PROGRAM -> {
                    ElementwiseProgram p = (ElementwiseProgram) v;
                    out.writeInt(p.inputs());
                    out.writeInt(p.steps().size());
                    for (ElementwiseProgram.Step st : p.steps()) {
                        str(st.isUnary() ? "u:" + st.unary().name() : st.isBinary() ? "b:" + st.binary().name()
                                : st.isCompare() ? "c:" + st.compare().name() : "s:");
                        out.writeInt(st.a());
                        out.writeInt(st.b());
                        if (st.isSelect()) { // the only step with a third operand
                            out.writeInt(st.c());
                        }
                    }
                }
            }
        }

        @SuppressWarnings("unchecked")
        void attrs(Attrs a) throws IOException {
            out.writeInt(a.asMap().size());
            for (Map.Entry<String, Object> e : a.asMap().entrySet()) {
                str(e.getKey());
                switch (e.getValue()) {
                    case Long l -> { out.writeByte(0); out.writeLong(l); }
                    case Double d -> { out.writeByte(1); out.writeDouble(d); }
                    case Boolean b -> { out.writeByte(2); out.writeByte(b ? 1 : 0); }
                    case String s -> { out.writeByte(3); str(s); }
                    case List<?> l when !l.isEmpty() && l.get(0) instanceof Double -> {
                        out.writeByte(5);
                        out.writeInt(l.size());
                        for (Double d : (List<Double>) l) {
                            out.writeDouble(d);
                        }
                    }
                    case List<?> l -> {
                        out.writeByte(4);
                        out.writeInt(l.size());
                        for (Long x : (List<Long>) l) {
                            out.writeLong(x);
                        }
                    }
                    default -> throw new IllegalStateException("attrs hold only normalised types");
                }
            }
        }
    }

    // ---------------------------------------------------------------- reading

    private static final class Reader {
        private final byte[] data;
        private final Limits limits;
        private int pos;
        private long nodes; // of every graph read so far

        Reader(byte[] data, Limits limits) {
            this.data = data;
            this.limits = limits;
        }

        private void need(int n, String what) {
            if (n < 0 || data.length - pos < n) {
                throw new GraphFormatException(pos, "truncated: need " + n + " bytes for " + what + ", "
                        + (data.length - pos) + " remain");
            }
        }

        int u8(String what) {
            need(1, what);
            return data[pos++];
        }

        int u16(String what) {
            need(2, what);
            int v = ((data[pos] & 0xFF) << 8) | (data[pos + 1] & 0xFF);
            pos += 2;
            return v;
        }

        int i32(String what) {
            need(4, what);
            int v = ((data[pos] & 0xFF) << 24) | ((data[pos + 1] & 0xFF) << 16) | ((data[pos + 2] & 0xFF) << 8)
                    | (data[pos + 3] & 0xFF);
            pos += 4;
            return v;
        }

        long i64(String what) {
            long hi = i32(what) & 0xFFFFFFFFL;
            long lo = i32(what) & 0xFFFFFFFFL;
            return (hi << 32) | lo;
        }

        /** A count of items each at least {@code minItemBytes} long: bounded by what remains. */
        int count(String what, int minItemBytes) {
            int at = pos;
            int n = i32(what);
            if (n < 0 || (long) n * minItemBytes > data.length - pos) {
                throw new GraphFormatException(at, what + " count " + n + " exceeds the " + (data.length - pos)
                        + " bytes that remain");
            }
            return n;
        }

        boolean bool(String what) {
            int at = pos;
            int b = u8(what);
            if (b != 0 && b != 1) {
                throw new GraphFormatException(at, what + " must be 0 or 1 but is " + b);
            }
            return b == 1;
        }

        String str(String what) {
            int n = count(what + " length", 1);
            String s = new String(data, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }

        Shape shape(String what) {
            int at = pos;
            String dt = str(what + " dtype");
            DType dtype;
            try {
                dtype = DType.valueOf(dt);
            } catch (IllegalArgumentException e) {
                throw new GraphFormatException(at, "unknown dtype '" + dt + "' in " + what);
            }
            int rankAt = pos;
            int rank = count(what + " rank", 4);
            if (rank > Shape.MAX_RANK) {
                throw new GraphFormatException(rankAt, what + " rank " + rank + " exceeds " + Shape.MAX_RANK);
            }
            int[] dims = new int[rank];
            for (int i = 0; i < rank; i++) {
                dims[i] = i32(what + " dim");
            }
            try {
                return Shape.of(dtype, dims);
            } catch (ShapeException e) {
                throw new GraphFormatException(at, what + ": " + e.getMessage(), e);
            }
        }

        Graph graph(int depth) {
            if (depth > MAX_DEPTH) {
                throw new GraphFormatException(pos, "subgraphs nested deeper than " + MAX_DEPTH);
            }
            int at = pos;
            String name = str("graph name");
            Graph g;
            try {
                g = new Graph(name.isEmpty() ? "g" : name);
            } catch (IllegalArgumentException e) {
                throw new GraphFormatException(at, e.getMessage(), e);
            }
            // Each node needs at least an op name length, an input count and a name flag.
            int countAt = pos;
            int n = count("node", 9);
            nodes += n;
            limits.check(Limits.Kind.GRAPH_NODES, "serialized graph (node count at offset " + countAt + ")", nodes);
            for (int id = 0; id < n; id++) {
                node(g, id, depth);
            }
            int outs = count("output", 8);
            List<Value> outputs = new ArrayList<>(outs);
            for (int i = 0; i < outs; i++) {
                outputs.add(ref(g, -1, "graph output " + i));
            }
            if (!outputs.isEmpty()) {
                g.setOutputs(outputs);
            }
            return g;
        }

        private void node(Graph g, int id, int depth) {
            int at = pos;
            String opName = str("op name of node %" + id);
            OpFields.OpClass oc = OpFields.byName(opName);
            if (oc == null) {
                throw new GraphFormatException(at, "node %" + id + " has unknown op '" + opName + "'");
            }
            Object[] args = new Object[oc.fields().size()];
            for (int i = 0; i < args.length; i++) {
                OpFields.Field f = oc.fields().get(i);
                args[i] = field(f, "node %" + id + " " + opName + "." + f.name(), depth);
            }
            Op op;
            try {
                op = oc.create(args);
            } catch (InvocationTargetException e) {
                throw new GraphFormatException(at, "node %" + id + " " + opName + ": " + e.getCause().getMessage(), e.getCause());
            }
            int nIn = count("inputs of node %" + id, 8);
            List<Value> in = new ArrayList<>(nIn);
            for (int i = 0; i < nIn; i++) {
                in.add(ref(g, id, "input " + i + " of node %" + id));
            }
            String nodeName = bool("name flag of node %" + id) ? str("name of node %" + id) : null;
            List<Value> outs;
            try {
                outs = g.apply(op, in);
                if (nodeName != null) {
                    g.name(outs.get(0), nodeName);
                }
            } catch (RlxException | IllegalArgumentException e) {
                throw new GraphFormatException(at, "node %" + id + ": " + e.getMessage(), e);
            }
            for (Value v : outs) {
                limits.check(Limits.Kind.TENSOR_BYTES, "serialized graph node %" + id + " " + opName
                        + " (offset " + at + ") output " + v.shape(), v.shape().byteSize());
            }
        }

        /** A reference to an output of an earlier node: forward and self references (cycles) are rejected. */
        private Value ref(Graph g, int fromNode, String what) {
            int at = pos;
            int node = i32(what);
            int index = i32(what);
            if (node < 0 || node >= g.size()) {
                String why = fromNode >= 0 && node >= fromNode && node >= 0
                        ? "not defined before it (a cycle or out-of-order node)"
                        : "dangling: the graph has " + g.size() + " nodes so far";
                throw new GraphFormatException(at, what + " refers to %" + node + ", " + why);
            }
            List<Value> outs = g.node(node).outputs();
            if (index < 0 || index >= outs.size()) {
                throw new GraphFormatException(at, what + " refers to output " + index + " of %" + node + ", which has "
                        + outs.size());
            }
            return outs.get(index);
        }

        private Object field(OpFields.Field f, String what, int depth) {
            int at = pos;
            return switch (f.type()) {
                case INT -> i32(what);
                case LONG -> i64(what);
                case FLOAT -> Float.intBitsToFloat(i32(what));
                case DOUBLE -> Double.longBitsToDouble(i64(what));
                case BOOLEAN -> bool(what);
                case STRING -> str(what);
                case ENUM -> enumValue(f.javaType(), str(what), at, what);
                case SHAPE -> shape(what);
                case TENSOR -> {
                    Shape s = shape(what);
                    int lenAt = pos;
                    int len = count(what + " bytes", 1);
                    if (len != s.byteSize()) {
                        throw new GraphFormatException(lenAt, what + ": " + len + " data bytes but " + s + " needs "
                                + s.byteSize());
                    }
                    byte[] b = new byte[len];
                    System.arraycopy(data, pos, b, 0, len);
                    pos += len;
                    yield Tensor.ofBytes(s, b);
                }
                case ATTRS -> attrs(what);
                case GRAPH -> graph(depth + 1);
                case INT_LIST -> {
                    int n = count(what, 4);
                    List<Integer> l = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        l.add(i32(what));
                    }
                    yield l;
                }
                case SHAPE_LIST -> {
                    int n = count(what, 8);
                    List<Shape> l = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        l.add(shape(what));
                    }
                    yield l;
                }
                case PROGRAM -> program(what);
            };
        }

        private ElementwiseProgram program(String what) {
            int at = pos;
            int inputs = i32(what + " inputs");
            int n = count(what + " steps", 12);
            List<ElementwiseProgram.Step> steps = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int stepAt = pos;
                String k = str(what + " step kind");
                int a = i32(what + " step operand");
                int b = i32(what + " step operand");
                try {
                    if (k.startsWith("u:")) {
                        steps.add(new ElementwiseProgram.Step(UnaryKind.valueOf(k.substring(2)), null, a, b));
                    } else if (k.startsWith("b:")) {
                        steps.add(new ElementwiseProgram.Step(null, BinaryKind.valueOf(k.substring(2)), a, b));
                    } else if (k.startsWith("c:")) {
                        steps.add(ElementwiseProgram.Step.compare(CompareKind.valueOf(k.substring(2)), a, b));
                    } else if (k.equals("s:")) {
                        steps.add(ElementwiseProgram.Step.select(a, b, i32(what + " step operand")));
                    } else {
                        throw new IllegalArgumentException("unknown step kind '" + k + "'");
                    }
                } catch (IllegalArgumentException e) {
                    throw new GraphFormatException(stepAt, what + ": " + e.getMessage(), e);
                }
            }
            try {
                return ElementwiseProgram.of(inputs, steps);
            } catch (IllegalArgumentException e) {
                throw new GraphFormatException(at, what + ": " + e.getMessage(), e);
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private static Object enumValue(Class<?> type, String name, int at, String what) {
            try {
                return Enum.valueOf((Class) type, name);
            } catch (IllegalArgumentException e) {
                throw new GraphFormatException(at, what + ": unknown " + type.getSimpleName() + " '" + name + "'");
            }
        }

        private Attrs attrs(String what) {
            int n = count(what, 6);
            Map<String, Object> m = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String key = str(what + " key");
                int at = pos;
                int tag = u8(what + " tag");
                Object v = switch (tag) {
                    case 0 -> i64(what);
                    case 1 -> Double.longBitsToDouble(i64(what));
                    case 2 -> bool(what);
                    case 3 -> str(what);
                    case 4 -> {
                        int c = count(what, 8);
                        List<Long> l = new ArrayList<>(c);
                        for (int j = 0; j < c; j++) {
                            l.add(i64(what));
                        }
                        yield l;
                    }
                    case 5 -> {
                        int c = count(what, 8);
                        List<Double> l = new ArrayList<>(c);
                        for (int j = 0; j < c; j++) {
                            l.add(Double.longBitsToDouble(i64(what)));
                        }
                        yield l;
                    }
                    default -> throw new GraphFormatException(at, what + ": unknown attribute tag " + tag);
                };
                if (m.put(key, v) != null) {
                    throw new GraphFormatException(at, what + ": duplicate attribute '" + key + "'");
                }
            }
            return Attrs.of(m);
        }
    }

}
