package dev.rlx.cpu.ort;

import java.io.ByteArrayOutputStream;

/**
 * Writes a one-node ONNX model (a {@code RandomNormal} or {@code RandomUniform} with its attributes) as
 * protobuf bytes, by hand: the field numbers are those of {@code onnx.proto} (ModelProto: ir_version 1,
 * graph 7, opset_import 8; GraphProto: node 1, name 2, output 12; NodeProto: output 2, name 3, op_type 4,
 * attribute 5; AttributeProto: name 1, f 2, i 3, ints 8, type 20; ValueInfoProto: name 1, type 2;
 * TypeProto: tensor_type 1; TypeProto.Tensor: elem_type 1, shape 2; TensorShapeProto: dim 1;
 * Dimension: dim_value 1; OperatorSetIdProto: domain 1, version 2).
 */
final class OnnxModelBytes {
    private OnnxModelBytes() {}

    static final int FLOAT = 1;
    static final int DOUBLE = 11;
    private static final int ATTR_FLOAT = 1;
    private static final int ATTR_INT = 2;
    private static final int ATTR_INTS = 7;

    /**
     * A model whose output {@code y} is {@code op} with attributes {@code (aName = a, bName = b)}, the shape,
     * the dtype and, when {@code seed} is not null, the seed.
     */
    static byte[] randomOp(String op, String aName, float a, String bName, float b, Float seed, long[] shape,
                           int dtype) {
        ByteArrayOutputStream node = new ByteArrayOutputStream();
        string(node, 2, "y");
        string(node, 3, "rng");
        string(node, 4, op);
        message(node, 5, floatAttr(aName, a));
        message(node, 5, floatAttr(bName, b));
        if (seed != null) {
            message(node, 5, floatAttr("seed", seed));
        }
        ByteArrayOutputStream shapeAttr = new ByteArrayOutputStream();
        string(shapeAttr, 1, "shape");
        for (long d : shape) {
            varintField(shapeAttr, 8, d);
        }
        varintField(shapeAttr, 20, ATTR_INTS);
        message(node, 5, shapeAttr);
        ByteArrayOutputStream dtypeAttr = new ByteArrayOutputStream();
        string(dtypeAttr, 1, "dtype");
        varintField(dtypeAttr, 3, dtype);
        varintField(dtypeAttr, 20, ATTR_INT);
        message(node, 5, dtypeAttr);

        ByteArrayOutputStream dims = new ByteArrayOutputStream();
        for (long d : shape) {
            ByteArrayOutputStream dim = new ByteArrayOutputStream();
            varintField(dim, 1, d);
            message(dims, 1, dim);
        }
        ByteArrayOutputStream tensorType = new ByteArrayOutputStream();
        varintField(tensorType, 1, dtype);
        message(tensorType, 2, dims);
        ByteArrayOutputStream type = new ByteArrayOutputStream();
        message(type, 1, tensorType);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        string(output, 1, "y");
        message(output, 2, type);

        ByteArrayOutputStream graph = new ByteArrayOutputStream();
        message(graph, 1, node);
        string(graph, 2, "random");
        message(graph, 12, output);
        ByteArrayOutputStream opset = new ByteArrayOutputStream();
        string(opset, 1, "");
        varintField(opset, 2, 13);
        ByteArrayOutputStream model = new ByteArrayOutputStream();
        varintField(model, 1, 8);
        message(model, 7, graph);
        message(model, 8, opset);
        return model.toByteArray();
    }

    private static ByteArrayOutputStream floatAttr(String name, float v) {
        ByteArrayOutputStream attr = new ByteArrayOutputStream();
        string(attr, 1, name);
        tag(attr, 2, 5);
        int bits = Float.floatToRawIntBits(v);
        for (int i = 0; i < 4; i++) {
            attr.write(bits >>> (8 * i));
        }
        varintField(attr, 20, ATTR_FLOAT);
        return attr;
    }

    private static void tag(ByteArrayOutputStream out, int field, int wireType) {
        varint(out, (long) field << 3 | wireType);
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static void varintField(ByteArrayOutputStream out, int field, long v) {
        tag(out, field, 0);
        varint(out, v);
    }

    private static void bytes(ByteArrayOutputStream out, int field, byte[] b) {
        tag(out, field, 2);
        varint(out, b.length);
        out.writeBytes(b);
    }

    private static void string(ByteArrayOutputStream out, int field, String s) {
        bytes(out, field, s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static void message(ByteArrayOutputStream out, int field, ByteArrayOutputStream m) {
        bytes(out, field, m.toByteArray());
    }
}
