package dev.rlx.testkit.reference;

import dev.rlx.ir.DType;
import dev.rlx.ir.Elements;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import java.lang.foreign.MemorySegment;

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

    /** The elements of {@code t}, read from its little-endian bytes (C64 as its interleaved f32 parts). */
    static RefTensor of(Tensor t) {
        RefTensor r = new RefTensor(t.shape());
        MemorySegment bytes = t.segment();
        DType d = t.dtype();
        for (int i = 0; i < r.size(); i++) {
            if (d.isComplex()) {
                r.real[2 * i] = Elements.getDouble(bytes, 2L * i, DType.F32);
                r.real[2 * i + 1] = Elements.getDouble(bytes, 2L * i + 1, DType.F32);
            } else if (r.ints != null) {
                r.ints[i] = Elements.getLong(bytes, i, d);
            } else {
                r.real[i] = Elements.getDouble(bytes, i, d);
            }
        }
        return r;
    }

    /** The elements as an immutable tensor of the dtype's little-endian bytes, each stored as a cast stores it. */
    Tensor toTensor() {
        DType d = dtype();
        byte[] out = new byte[Math.toIntExact(shape.byteSize())];
        MemorySegment bytes = MemorySegment.ofArray(out);
        for (int i = 0; i < size(); i++) {
            if (d.isComplex()) {
                Elements.setDouble(bytes, 2L * i, DType.F32, real[2 * i]);
                Elements.setDouble(bytes, 2L * i + 1, DType.F32, real[2 * i + 1]);
            } else if (ints != null) {
                Elements.setLong(bytes, i, d, ints[i]);
            } else {
                Elements.setDouble(bytes, i, d, real[i]);
            }
        }
        return Tensor.ofBytes(shape, out);
    }
}
