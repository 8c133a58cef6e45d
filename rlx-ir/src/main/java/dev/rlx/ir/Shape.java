package dev.rlx.ir;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * An element type plus dimensions (row-major). Immutable, with value equality: {@code Shape.of(F32, 1, 4)}
 * equals any other {@code f32[1,4]}.
 *
 * <p>Dimensions are non-negative (at most {@link #MAX_RANK} of them); a zero dimension makes an empty tensor. A rank-0 shape is a scalar with
 * one element. Element counts and byte sizes are {@code long} and checked for overflow.
 */
public final class Shape {
    /** The largest rank a shape may have (and the serializer reads). */
    public static final int MAX_RANK = 64;

    private final DType dtype;
    private final int[] dims;

    private Shape(DType dtype, int[] dims) {
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        if (dims.length > MAX_RANK) {
            throw new ShapeException("[shape] rank " + dims.length + " exceeds the maximum " + MAX_RANK);
        }
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] < 0) {
                throw new ShapeException("[shape] dimension " + i + " is negative: " + Arrays.toString(dims));
            }
        }
        this.dims = dims;
        elementCount(); // rejects shapes whose element count or byte size overflows a long
    }

    /** {@code Shape.of(DType.F32, 1, 4)} is a 1x4 f32 matrix; {@code Shape.of(DType.F32)} a scalar. */
    public static Shape of(DType dtype, int... dims) {
        return new Shape(dtype, dims.clone());
    }

    public static Shape of(DType dtype, List<Integer> dims) {
        return new Shape(dtype, dims.stream().mapToInt(Integer::intValue).toArray());
    }

    public static Shape scalar(DType dtype) {
        return new Shape(dtype, new int[0]);
    }

    public DType dtype() {
        return dtype;
    }

    public int rank() {
        return dims.length;
    }

    /** A copy of the dimensions. */
    public int[] dims() {
        return dims.clone();
    }

    public List<Integer> dimList() {
        return Arrays.stream(dims).boxed().toList();
    }

    /** Dimension {@code axis}; negative axes count from the end ({@code -1} is the last). */
    public int dim(int axis) {
        int a = axis < 0 ? axis + dims.length : axis;
        if (a < 0 || a >= dims.length) {
            throw new ShapeException("[shape] axis " + axis + " out of range for rank " + dims.length + " shape " + this);
        }
        return dims[a];
    }

    public boolean isScalar() {
        return dims.length == 0;
    }

    /** Product of the dimensions (1 for a scalar). */
    public long elementCount() {
        for (int d : dims) {
            if (d == 0) {
                return 0; // whatever the other dims, and even if their product alone would overflow
            }
        }
        long n = 1;
        for (int d : dims) {
            try {
                n = Math.multiplyExact(n, (long) d);
            } catch (ArithmeticException e) {
                throw new ShapeException("[shape] element count overflows a long: " + describe(dtype, dims));
            }
        }
        try {
            Math.multiplyExact(n, (long) dtype.byteSize());
        } catch (ArithmeticException e) {
            throw new ShapeException("[shape] byte size overflows a long: " + describe(dtype, dims));
        }
        return n;
    }

    /** {@link #elementCount()} times the element size. */
    public long byteSize() {
        return elementCount() * dtype.byteSize();
    }

    /** Product of dims in {@code [from, to)}. */
    public long elementCount(int from, int to) {
        long n = 1;
        for (int i = from; i < to; i++) {
            n *= dims[i];
        }
        return n;
    }

    public Shape withDtype(DType newType) {
        return newType == dtype ? this : new Shape(newType, dims);
    }

    public Shape withDims(int... newDims) {
        return new Shape(dtype, newDims.clone());
    }

    /** This shape with dimension {@code axis} replaced. */
    public Shape withDim(int axis, int size) {
        int[] d = dims.clone();
        d[axis < 0 ? axis + d.length : axis] = size;
        return new Shape(dtype, d);
    }

    /** Row-major strides in elements. */
    public long[] strides() {
        long[] s = new long[dims.length];
        long acc = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= dims[i];
        }
        return s;
    }

    public boolean sameDims(Shape other) {
        return Arrays.equals(dims, other.dims);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Shape s && s.dtype == dtype && Arrays.equals(s.dims, dims);
    }

    @Override
    public int hashCode() {
        return 31 * dtype.hashCode() + Arrays.hashCode(dims);
    }

    /** {@code f32[1,4]}; a scalar prints as {@code f32[]}. */
    @Override
    public String toString() {
        return describe(dtype, dims);
    }

    private static String describe(DType dtype, int[] dims) {
        StringBuilder sb = new StringBuilder(dtype.label()).append('[');
        for (int i = 0; i < dims.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(dims[i]);
        }
        return sb.append(']').toString();
    }
}
