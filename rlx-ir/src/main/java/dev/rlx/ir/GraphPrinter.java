package dev.rlx.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Readable text form of a graph, one node per line, subgraphs indented under their node:
 *
 * <pre>
 * graph @hello {
 *   %0 = input "x" : f32[1,4]
 *   %1 = param "w" : f32[4,2]
 *   %2 = matmul(%0, %1) : f32[1,2]
 *   %3 = reduce_sum[axes=[1], keepDims=false](%2) : f32[1]
 *   return %3
 * }
 * </pre>
 */
public final class GraphPrinter {
    /** Constants with at most this many elements print their values. */
    private static final int MAX_PRINTED_ELEMENTS = 8;

    private GraphPrinter() {}

    public static String print(Graph g) {
        StringBuilder sb = new StringBuilder();
        print(g, "", sb);
        return sb.toString();
    }

    private static void print(Graph g, String indent, StringBuilder sb) {
        sb.append(indent).append("graph @").append(g.name()).append(" {\n");
        for (Node n : g.nodes()) {
            sb.append(indent).append("  ");
            sb.append(n.outputs().stream().map(Value::toString).collect(Collectors.joining(", ")));
            sb.append(" = ").append(describe(n));
            sb.append(" : ").append(n.outputs().stream().map(v -> v.shape().toString()).collect(Collectors.joining(", ")));
            if (n.name() != null && !(n.op() instanceof Op.Input || n.op() instanceof Op.Param)) {
                sb.append("  # '").append(n.name()).append('\'');
            }
            sb.append('\n');
            for (OpFields.Field f : OpFields.of(n.op()).fields()) {
                if (f.type() == OpFields.FieldType.GRAPH) {
                    sb.append(indent).append("    ").append(f.name()).append(":\n");
                    print((Graph) f.get(n.op()), indent + "    ", sb);
                }
            }
        }
        sb.append(indent).append("  return ")
                .append(g.outputs().stream().map(Value::toString).collect(Collectors.joining(", "))).append('\n');
        sb.append(indent).append("}\n");
    }

    /** {@code matmul(%0, %1)}, {@code softmax[axis=1](%2)}, {@code input "x"}. */
    static String describe(Node n) {
        Op op = n.op();
        if (op instanceof Op.Input in) {
            return "input \"" + in.name() + "\"";
        }
        if (op instanceof Op.Param p) {
            return "param \"" + p.name() + "\"";
        }
        if (op instanceof Op.Constant c) {
            return "constant " + tensor(c.value());
        }
        List<String> attrs = new ArrayList<>();
        for (OpFields.Field f : OpFields.of(op).fields()) {
            Object v = f.get(op);
            switch (f.type()) {
                case GRAPH -> attrs.add(f.name() + "=@" + ((Graph) v).name());
                case TENSOR -> attrs.add(f.name() + "=" + tensor((Tensor) v));
                case FLOAT -> attrs.add(f.name() + "=" + String.format(Locale.ROOT, "%s", v));
                default -> {
                    // "op" selects the function and is already in the label (relu, reduce_sum); a matmul's
                    // transpose flags show only when set.
                    boolean unsetFlag = f.name().startsWith("trans") && Boolean.FALSE.equals(v);
                    if (!f.name().equals("op") && !unsetFlag) {
                        attrs.add(f.name() + "=" + v);
                    }
                }
            }
        }
        String a = attrs.isEmpty() ? "" : "[" + String.join(", ", attrs) + "]";
        String ins = n.inputs().stream().map(Value::toString).collect(Collectors.joining(", "));
        return op.label() + a + "(" + ins + ")";
    }

    private static String tensor(Tensor t) {
        long n = t.shape().elementCount();
        if (n > MAX_PRINTED_ELEMENTS) {
            return t.byteLength() + "B";
        }
        StringBuilder sb = new StringBuilder("[");
        for (long i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(element(t, Math.toIntExact(i)));
        }
        return sb.append(']').toString();
    }

    /** Element {@code i} exactly: f64 and i64 not through f32 or double, c64 with both parts. */
    private static String element(Tensor t, int i) {
        java.nio.ByteBuffer b = t.buffer();
        return switch (t.dtype()) {
            case F64 -> Double.toString(b.getDouble(i * 8));
            case I64 -> Long.toString(b.getLong(i * 8));
            case C64 -> {
                float re = b.getFloat(i * 8);
                float im = b.getFloat(i * 8 + 4);
                yield re + (im < 0 || (im == 0 && 1 / im < 0) ? "" : "+") + im + "i";
            }
            default -> t.dtype().isFloat() ? String.format(Locale.ROOT, "%s", (float) t.getDouble(i))
                    : String.valueOf((long) t.getDouble(i));
        };
    }
}
