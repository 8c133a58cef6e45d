package dev.rlx.ir;

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
        ByteBuffer b = buffer(s);
        switch (dtype) {
            case F32 -> b.putFloat((float) v);
            case F64 -> b.putDouble(v);
            case F16 -> b.putShort(HalfFloats.toF16(roundToOdd(v)));
            case BF16 -> b.putShort(HalfFloats.toBF16(roundToOdd(v)));
            case I8 -> b.put((byte) saturate(v, Byte.MIN_VALUE, Byte.MAX_VALUE));
            case U8 -> b.put((byte) saturate(v, 0, 0xFF));
            case I16 -> b.putShort((short) saturate(v, Short.MIN_VALUE, Short.MAX_VALUE));
            case I32 -> b.putInt((int) saturate(v, Integer.MIN_VALUE, Integer.MAX_VALUE));
            case U32 -> b.putInt((int) saturate(v, 0, 0xFFFFFFFFL));
            case I64 -> b.putLong((long) v); // Java's conversion truncates, saturates and maps NaN to 0
            case BOOL -> b.put((byte) (v != 0 ? 1 : 0));
            case C64 -> b.putFloat((float) v).putFloat(0f);
        }
        return new Tensor(s, b.array());
    }

    /** Float to integer as {@link Op.Cast} does it: truncate toward zero, clamp to [min, max], NaN to 0. */
    private static long saturate(double v, long min, long max) {
        return Math.max(min, Math.min(max, (long) v));
    }

    /**
     * {@code v} as a float rounded to odd: exact when representable, otherwise the float next to {@code v}
     * toward zero with its last bit set. Rounding that to a format of at most 22 significant bits (f16, bf16)
     * gives the correctly rounded {@code v}, which going through the nearest float would not (double rounding).
     */
    private static float roundToOdd(double v) {
        float f = (float) v;
        if (Float.isNaN(f) || Float.isInfinite(f) || f == v) {
            return f;
        }
        float towardZero = Math.abs((double) f) > Math.abs(v) ? Math.nextAfter(f, 0.0) : f;
        return Float.intBitsToFloat(Float.floatToRawIntBits(towardZero) | 1);
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

    public int byteLength() {
        return bytes.length;
    }

    /** Element {@code i} (flat, row-major) converted to double; C64 gives the real part. */
    public double getDouble(long i) {
        int k = Math.toIntExact(i);
        ByteBuffer b = buffer();
        return switch (dtype()) {
            case F32 -> b.getFloat(k * 4);
            case F64 -> b.getDouble(k * 8);
            case F16 -> HalfFloats.f16ToFloat(b.getShort(k * 2));
            case BF16 -> HalfFloats.bf16ToFloat(b.getShort(k * 2));
            case I8 -> b.get(k);
            case U8 -> b.get(k) & 0xFF;
            case I16 -> b.getShort(k * 2);
            case I32 -> b.getInt(k * 4);
            case U32 -> b.getInt(k * 4) & 0xFFFFFFFFL;
            case I64 -> b.getLong(k * 8);
            case BOOL -> b.get(k) != 0 ? 1 : 0;
            case C64 -> b.getFloat(k * 8);
        };
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
