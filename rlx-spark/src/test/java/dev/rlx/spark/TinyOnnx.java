package dev.rlx.spark;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

/**
 * A small ONNX model written field by field (numbers of {@code onnx.proto}) for the tests: {@code x [N, 6]} f32,
 * {@code y = Relu(x W + b)} {@code [N, 4]} and {@code s = Sigmoid(y)} {@code [N, 4]}, with random weights.
 */
final class TinyOnnx {
    static final int IN = 6;
    static final int OUT = 4;

    private TinyOnnx() {}

    interface Body {
        void write(CodedOutputStream o) throws IOException;
    }

    static byte[] model(long seed) {
        Random r = new Random(seed);
        float[] w = new float[IN * OUT];
        float[] b = new float[OUT];
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) r.nextGaussian();
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (float) (r.nextGaussian() * 0.1);
        }
        byte[] graph = message(g -> {
            g.writeByteArray(1, node("MatMul", new String[] {"x", "W"}, "xw"));
            g.writeByteArray(1, node("Add", new String[] {"xw", "b"}, "pre"));
            g.writeByteArray(1, node("Relu", new String[] {"pre"}, "y"));
            g.writeByteArray(1, node("Sigmoid", new String[] {"y"}, "s"));
            g.writeString(2, "tiny");
            g.writeByteArray(5, tensor("W", w, IN, OUT));
            g.writeByteArray(5, tensor("b", b, OUT));
            g.writeByteArray(11, valueInfo("x", IN));
            g.writeByteArray(12, valueInfo("y", OUT));
            g.writeByteArray(12, valueInfo("s", OUT));
        });
        return message(m -> {
            m.writeInt64(1, 8);
            m.writeByteArray(7, graph);
            m.writeByteArray(8, message(q -> {
                q.writeString(1, "");
                q.writeInt64(2, 13);
            }));
        });
    }

    private static byte[] node(String op, String[] in, String out) {
        return message(n -> {
            for (String s : in) {
                n.writeString(1, s);
            }
            n.writeString(2, out);
            n.writeString(3, op + "_" + out);
            n.writeString(4, op);
        });
    }

    private static byte[] tensor(String name, float[] v, long... dims) {
        ByteBuffer raw = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        raw.asFloatBuffer().put(v);
        return message(t -> {
            for (long d : dims) {
                t.writeInt64(1, d);
            }
            t.writeInt32(2, 1); // FLOAT
            t.writeString(8, name);
            t.writeByteArray(9, raw.array());
        });
    }

    /** {@code name}: f32 {@code [N, width]}, N symbolic. */
    private static byte[] valueInfo(String name, int width) {
        byte[] shape = message(s -> {
            s.writeByteArray(1, message(d -> d.writeString(2, "N")));
            s.writeByteArray(1, message(d -> d.writeInt64(1, width)));
        });
        byte[] tensorType = message(t -> {
            t.writeInt32(1, 1);
            t.writeByteArray(2, shape);
        });
        return message(v -> {
            v.writeString(1, name);
            v.writeByteArray(2, message(t -> t.writeByteArray(1, tensorType)));
        });
    }

    private static byte[] message(Body body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream o = CodedOutputStream.newInstance(bytes);
            body.write(o);
            o.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
