package dev.rlx.testkit.reference;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A tensor as the reference interpreter holds it between nodes: its shape and its elements as stored in the
 * dtype. Float and BOOL elements are doubles (already rounded to the dtype; BOOL 0 or 1), C64 elements are two
 * doubles (re, im; each an f32 value), and integer elements are longs wrapped to the width (U8 and U32 as
 * their unsigned values), so I64 keeps all 64 bits. Mutable while a node computes it, then only read.
 */
final class RefTensor {
    final Shape shape;
    /** Float, BOOL and C64 (interleaved) elements; null for integer dtypes. */
    final double[] real;
    /** Integer elements; null for other dtypes. */
    final long[] ints;

    private RefTensor(Shape shape) {
        this.shape = shape;
        int n = Math.toIntExact(shape.elementCount());
        DType t = shape.dtype();
        this.ints = t.isInteger() ? new long[n] : null;
        this.real = t.isInteger() ? null : new double[t.isComplex() ? 2 * n : n];
    }

    /** All elements zero (false). */
    static RefTensor zeros(Shape shape) {
        return new RefTensor(shape);
    }

    /** Floats (or BOOL) of {@code shape} from {@code values}, each stored (rounded) in the dtype. */
    static RefTensor rounded(Shape shape, double[] values) {
        RefTensor t = new RefTensor(shape);
        for (int i = 0; i < values.length; i++) {
            t.set(i, values[i]);
        }
        return t;
    }

    DType dtype() {
        return shape.dtype();
    }

    int size() {
        return Math.toIntExact(shape.elementCount());
    }

    boolean integral() {
        return ints != null;
    }

    /** Element {@code i} as a double: floats and BOOL as held, integers converted, C64 its real part. */
    double get(int i) {
        if (ints != null) {
            return ints[i];
        }
        return dtype().isComplex() ? real[2 * i] : real[i];
    }

    /** Element {@code i} of an integer or BOOL tensor. */
    long getLong(int i) {
        return ints != null ? ints[i] : (long) real[i];
    }

    /** Stores {@code v} at {@code i} as a cast to the dtype would (C64: real part v, imaginary 0). */
    void set(int i, double v) {
        DType t = dtype();
        if (ints != null) {
            ints[i] = Storage.saturate(v, t);
        } else if (t.isComplex()) {
            real[2 * i] = Storage.roundFloat(v, t);
            real[2 * i + 1] = 0;
        } else {
            real[i] = Storage.roundFloat(v, t);
        }
    }

    /** Stores integer {@code v} at {@code i}: wrapped for integer dtypes, rounded once for float ones. */
    void setLong(int i, long v) {
        DType t = dtype();
        if (ints != null) {
            ints[i] = Storage.wrap(v, t);
        } else if (t.isBool()) {
            real[i] = v != 0 ? 1 : 0;
        } else {
            set(i, Storage.fromInteger(v, t));
        }
    }

    /** Copies element {@code from} of {@code src} (same dtype) to element {@code to}, bit for bit. */
    void copy(int to, RefTensor src, int from) {
        if (ints != null) {
            ints[to] = src.ints[from];
        } else if (dtype().isComplex()) {
            real[2 * to] = src.real[2 * from];
            real[2 * to + 1] = src.real[2 * from + 1];
        } else {
            real[to] = src.real[from];
        }
    }

    /** The float (or BOOL) elements as a {@link Ref} sharing this tensor's array. */
    Ref asRef() {
        if (real == null || dtype().isComplex()) {
            throw new IllegalStateException(shape + " has no real float view");
        }
        return new Ref(shape.dims(), real);
    }

    // ---------------------------------------------------------------- bytes

    /** The elements of {@code t}, read from its little-endian bytes. */
    static RefTensor of(Tensor t) {
        RefTensor r = new RefTensor(t.shape());
        ByteBuffer b = t.buffer();
        DType d = t.dtype();
        for (int i = 0; i < r.size(); i++) {
            switch (d) {
                case F32 -> r.real[i] = b.getFloat(4 * i);
                case F64 -> r.real[i] = b.getDouble(8 * i);
                case F16, BF16, BOOL -> r.real[i] = t.getDouble(i);
                case C64 -> {
                    r.real[2 * i] = b.getFloat(8 * i);
                    r.real[2 * i + 1] = b.getFloat(8 * i + 4);
                }
                case I8 -> r.ints[i] = b.get(i);
                case U8 -> r.ints[i] = b.get(i) & 0xFF;
                case I16 -> r.ints[i] = b.getShort(2 * i);
                case I32 -> r.ints[i] = b.getInt(4 * i);
                case U32 -> r.ints[i] = b.getInt(4 * i) & 0xFFFFFFFFL;
                case I64 -> r.ints[i] = b.getLong(8 * i);
            }
        }
        return r;
    }

    /** The elements as an immutable tensor of the dtype's little-endian bytes. */
    Tensor toTensor() {
        DType d = dtype();
        ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(shape.byteSize())).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < size(); i++) {
            switch (d) {
                case F32 -> b.putFloat((float) real[i]);
                case F64 -> b.putDouble(real[i]);
                case F16, BF16 -> b.put(Tensor.scalar(d, real[i]).bytes());
                case BOOL -> b.put((byte) (real[i] != 0 ? 1 : 0));
                case C64 -> b.putFloat((float) real[2 * i]).putFloat((float) real[2 * i + 1]);
                case I8, U8 -> b.put((byte) ints[i]);
                case I16 -> b.putShort((short) ints[i]);
                case I32, U32 -> b.putInt((int) ints[i]);
                case I64 -> b.putLong(ints[i]);
            }
        }
        return Tensor.ofBytes(shape, b.array());
    }
}
