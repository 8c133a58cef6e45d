package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Host-side helpers for small tensors the importer reads or makes (shapes, axes, constants). */
final class Tensors {
    private Tensors() {}

    /** Elements as longs (integers exactly, floats truncated, BOOL as 0/1). */
    static long[] longs(Tensor t) {
        int n = Math.toIntExact(t.shape().elementCount());
        long[] out = new long[n];
        ByteBuffer b = t.buffer();
        for (int i = 0; i < n; i++) {
            out[i] = switch (t.dtype()) {
                case I64 -> b.getLong(i * 8);
                case I32 -> b.getInt(i * 4);
                case U32 -> b.getInt(i * 4) & 0xFFFFFFFFL;
                default -> (long) t.getDouble(i);
            };
        }
        return out;
    }

    /** A tensor of {@code dtype} and {@code dims} holding {@code values} converted as a cast would. */
    static Tensor of(DType dtype, int[] dims, double[] values) {
        Shape s = Shape.of(dtype, dims);
        ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(s.byteSize())).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            b.put(Tensor.scalar(dtype, v).buffer());
        }
        return Tensor.ofBytes(s, b.array());
    }

    /** {@code n} copies of the single element of {@code scalar} with {@code dims}. */
    static Tensor fill(Tensor scalar, int[] dims) {
        Shape s = Shape.of(scalar.dtype(), dims);
        long n = s.elementCount();
        if (s.byteSize() > TensorDecoder.MAX_BYTES) {
            throw new OnnxImportException("a filled tensor " + s + " would exceed " + TensorDecoder.MAX_BYTES + " bytes");
        }
        byte[] one = scalar.bytes();
        byte[] out = new byte[Math.toIntExact(s.byteSize())];
        for (long i = 0; i < n; i++) {
            System.arraycopy(one, 0, out, (int) (i * one.length), one.length);
        }
        return Tensor.ofBytes(s, out);
    }

    /** A long converted to an int dimension or index, or an import error naming {@code what}. */
    static int toInt(long v, String what) {
        if (v != (int) v) {
            throw new OnnxImportException(what + " " + v + " does not fit a 32-bit int");
        }
        return (int) v;
    }
}
