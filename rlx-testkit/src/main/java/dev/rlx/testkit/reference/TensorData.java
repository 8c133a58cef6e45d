package dev.rlx.testkit.reference;

import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;

/**
 * Tensors to and from plain arrays, element by element as stored in the dtype: what test data generators
 * and output comparisons read and write. C64 elements are two doubles (re, im).
 */
public final class TensorData {
    private TensorData() {}

    /**
     * A tensor of {@code shape} holding {@code values} converted as {@code cast} converts (floats rounded to
     * nearest even, integers truncated and saturated, BOOL {@code != 0}); C64 takes (re, im) pairs.
     */
    public static Tensor of(Shape shape, double[] values) {
        RefTensor t = RefTensor.zeros(shape);
        int width = shape.dtype().isComplex() ? 2 : 1;
        if (values.length != width * t.size()) {
            throw new IllegalArgumentException(shape + " needs " + width * t.size() + " values, got " + values.length);
        }
        if (width == 2) {
            for (int i = 0; i < values.length; i++) {
                t.real[i] = (float) values[i];
            }
        } else {
            for (int i = 0; i < values.length; i++) {
                t.set(i, values[i]);
            }
        }
        return t.toTensor();
    }

    /** A tensor of integer (or BOOL) {@code shape} holding {@code values} wrapped to the width. */
    public static Tensor ofLongs(Shape shape, long[] values) {
        RefTensor t = RefTensor.zeros(shape);
        if (values.length != t.size()) {
            throw new IllegalArgumentException(shape + " needs " + t.size() + " values, got " + values.length);
        }
        for (int i = 0; i < values.length; i++) {
            t.setLong(i, values[i]);
        }
        return t.toTensor();
    }

    /** Every element as a double (integers converted; C64 as interleaved (re, im)). */
    public static double[] doubles(Tensor t) {
        RefTensor r = RefTensor.of(t);
        if (r.real != null) {
            return r.real.clone();
        }
        double[] d = new double[r.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = r.ints[i];
        }
        return d;
    }

    /** Every element of an integer or BOOL tensor, exactly. */
    public static long[] longs(Tensor t) {
        RefTensor r = RefTensor.of(t);
        long[] l = new long[r.size()];
        for (int i = 0; i < l.length; i++) {
            l[i] = r.getLong(i);
        }
        return l;
    }
}
