package dev.rlx.bench;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Writes small f32 ONNX models as protobuf bytes, for running a benchmark's peer on ONNX Runtime. Field
 * numbers are those of {@code onnx.proto}: ModelProto ir_version 1, graph 7, opset_import 8; GraphProto
 * node 1, name 2, initializer 5, input 11, output 12; NodeProto input 1, output 2, op_type 4, attribute 5;
 * AttributeProto name 1, f 2, i 3, ints 8, type 20; TensorProto dims 1, data_type 2, name 8, raw_data 9;
 * ValueInfoProto name 1, type 2; TypeProto tensor_type 1; TypeProto.Tensor elem_type 1, shape 2;
 * TensorShapeProto dim 1; Dimension dim_value 1; OperatorSetIdProto version 2.
 */
final class OnnxModelWriter {
    private static final int FLOAT = 1;
    private static final int ATTR_FLOAT = 1;
    private static final int ATTR_INT = 2;
    private static final int ATTR_INTS = 7;

    private final ByteArrayOutputStream graph = new ByteArrayOutputStream();

    OnnxModelWriter() {
        string(graph, 2, "bench");
    }

    /** A graph input of f32 with fixed dims. */
    OnnxModelWriter input(String name, long... dims) {
        message(graph, 11, valueInfo(name, dims));
        return this;
    }

    /** A graph output of f32 with fixed dims. */
    OnnxModelWriter output(String name, long... dims) {
        message(graph, 12, valueInfo(name, dims));
        return this;
    }

    /** An f32 initializer (a weight). */
    OnnxModelWriter initializer(String name, float[] values, long... dims) {
        ByteArrayOutputStream t = new ByteArrayOutputStream();
        for (long d : dims) {
            varintField(t, 1, d);
        }
        varintField(t, 2, FLOAT);
        string(t, 8, name);
        ByteBuffer raw = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        raw.asFloatBuffer().put(values);
        bytes(t, 9, raw.array());
        message(graph, 5, t);
        return this;
    }

    /** A node; attributes are name/value pairs (Integer, Float or int[]). */
    OnnxModelWriter node(String op, List<String> inputs, List<String> outputs, Object... attributes) {
        ByteArrayOutputStream n = new ByteArrayOutputStream();
        inputs.forEach(i -> string(n, 1, i));
        outputs.forEach(o -> string(n, 2, o));
        string(n, 4, op);
        for (int a = 0; a < attributes.length; a += 2) {
            ByteArrayOutputStream attr = new ByteArrayOutputStream();
            string(attr, 1, (String) attributes[a]);
            switch (attributes[a + 1]) {
                case Integer i -> {
                    varintField(attr, 3, i);
                    varintField(attr, 20, ATTR_INT);
                }
                case Float f -> {
                    tag(attr, 2, 5);
                    int bits = Float.floatToIntBits(f);
                    for (int b = 0; b < 4; b++) {
                        attr.write(bits >>> (8 * b));
                    }
                    varintField(attr, 20, ATTR_FLOAT);
                }
                case int[] ints -> {
                    for (int i : ints) {
                        varintField(attr, 8, i);
                    }
                    varintField(attr, 20, ATTR_INTS);
                }
                default -> throw new IllegalArgumentException("attribute type " + attributes[a + 1].getClass());
            }
            message(n, 5, attr);
        }
        message(graph, 1, n);
        return this;
    }

    /** The model: IR version 8, default-domain opset 17. */
    byte[] build() {
        ByteArrayOutputStream model = new ByteArrayOutputStream();
        varintField(model, 1, 8);
        message(model, 7, graph);
        ByteArrayOutputStream opset = new ByteArrayOutputStream();
        varintField(opset, 2, 17);
        message(model, 8, opset);
        return model.toByteArray();
    }

    private static ByteArrayOutputStream valueInfo(String name, long[] dims) {
        ByteArrayOutputStream shape = new ByteArrayOutputStream();
        for (long d : dims) {
            ByteArrayOutputStream dim = new ByteArrayOutputStream();
            varintField(dim, 1, d);
            message(shape, 1, dim);
        }
        ByteArrayOutputStream tensor = new ByteArrayOutputStream();
        varintField(tensor, 1, FLOAT);
        message(tensor, 2, shape);
        ByteArrayOutputStream type = new ByteArrayOutputStream();
        message(type, 1, tensor);
        ByteArrayOutputStream info = new ByteArrayOutputStream();
        string(info, 1, name);
        message(info, 2, type);
        return info;
    }

    private static void tag(ByteArrayOutputStream out, int field, int wireType) {
        varint(out, ((long) field << 3) | wireType);
    }

    private static void varintField(ByteArrayOutputStream out, int field, long v) {
        tag(out, field, 0);
        varint(out, v);
    }

    private static void string(ByteArrayOutputStream out, int field, String s) {
        bytes(out, field, s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static void message(ByteArrayOutputStream out, int field, ByteArrayOutputStream m) {
        bytes(out, field, m.toByteArray());
    }

    private static void bytes(ByteArrayOutputStream out, int field, byte[] b) {
        tag(out, field, 2);
        varint(out, b.length);
        out.writeBytes(b);
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }
}
