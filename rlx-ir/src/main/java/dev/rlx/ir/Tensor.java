package dev.rlx.ir;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * An immutable host tensor: a {@link Shape} and its little-endian bytes. Used for graph constants and as a
 * convenience at the API edge. Equality compares shape and bytes.
 */
public final class Tensor {
    private final Shape shape;
    private final byte[] bytes;

    private Tensor(Shape shape, byte[] bytes) {
        this.shape = Objects.requireNonNull(shape, "shape");
        if (shape.byteSize() != bytes.length) {
            throw new ShapeException("[tensor] " + shape + " needs " + shape.byteSize() + " bytes but " + bytes.length
                    + " were given");
        }
        this.bytes = bytes;
    }

    /** Wraps a copy of {@code littleEndianBytes}, which must be exactly {@code shape.byteSize()} long. */
    public static Tensor ofBytes(Shape shape, byte[] littleEndianBytes) {
        return new Tensor(shape, littleEndianBytes.clone());
    }

    public static Tensor of(float[] data, int... dims) {
        Shape s = Shape.of(DType.F32, dims);
        checkCount(s, data.length);
        ByteBuffer b = buffer(s);
        b.asFloatBuffer().put(data);
        return new Tensor(s, b.array());
    }

    public static Tensor of(double[] data, int... dims) {
        Shape s = Shape.of(DType.F64, dims);
        checkCount(s, data.length);
        ByteBuffer b = buffer(s);
        b.asDoubleBuffer().put(data);
        return new Tensor(s, b.array());
    }

    public static Tensor of(int[] data, int... dims) {
        Shape s = Shape.of(DType.I32, dims);
        checkCount(s, data.length);
        ByteBuffer b = buffer(s);
        b.asIntBuffer().put(data);
        return new Tensor(s, b.array());
    }

    public static Tensor of(long[] data, int... dims) {
        Shape s = Shape.of(DType.I64, dims);
        checkCount(s, data.length);
        ByteBuffer b = buffer(s);
        b.asLongBuffer().put(data);
        return new Tensor(s, b.array());
    }

    public static Tensor of(boolean[] data, int... dims) {
        Shape s = Shape.of(DType.BOOL, dims);
        checkCount(s, data.length);
        byte[] b = new byte[data.length];
        for (int i = 0; i < data.length; i++) {
            b[i] = (byte) (data[i] ? 1 : 0);
        }
        return new Tensor(s, b);
    }

    /** A rank-0 f32 tensor. */
    public static Tensor scalar(float v) {
        return of(new float[] {v});
    }

    /** A rank-0 tensor of {@code dtype} holding {@code v} converted as a {@code cast} would. */
    public static Tensor scalar(DType dtype, double v) {
        Shape s = Shape.scalar(dtype);
        byte[] b = new byte[Math.toIntExact(s.byteSize())];
        Elements.setDouble(MemorySegment.ofArray(b), 0, dtype, v);
        return new Tensor(s, b);
    }

    private static void checkCount(Shape s, int n) {
        if (s.elementCount() != n) {
            throw new ShapeException("[tensor] " + s + " has " + s.elementCount() + " elements but " + n
                    + " values were given");
        }
    }

    private static ByteBuffer buffer(Shape s) {
        return ByteBuffer.allocate(Math.toIntExact(s.byteSize())).order(ByteOrder.LITTLE_ENDIAN);
    }

    public Shape shape() {
        return shape;
    }

    public DType dtype() {
        return shape.dtype();
    }

    /** A copy of the little-endian bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** A read-only little-endian view of the bytes. */
    public ByteBuffer buffer() {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A read-only little-endian view of the bytes, without copying them. */
    public MemorySegment segment() {
        return MemorySegment.ofArray(bytes).asReadOnly();
    }

    public int byteLength() {
        return bytes.length;
    }

    /** Element {@code i} (flat, row-major) converted to double; C64 gives the real part. */
    public double getDouble(long i) {
        Objects.checkIndex(i, shape.elementCount());
        return Elements.getDouble(MemorySegment.ofArray(bytes), i, dtype());
    }

    /** All elements converted to float (C64: real parts). */
    public float[] toFloatArray() {
        float[] out = new float[Math.toIntExact(shape.elementCount())];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) getDouble(i);
        }
        return out;
    }

    /** All elements converted to double (C64: real parts). */
    public double[] toDoubleArray() {
        double[] out = new double[Math.toIntExact(shape.elementCount())];
        for (int i = 0; i < out.length; i++) {
            out[i] = getDouble(i);
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tensor t && t.shape.equals(shape) && Arrays.equals(t.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return 31 * shape.hashCode() + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "tensor(" + shape + ", " + bytes.length + "B)";
    }
}
