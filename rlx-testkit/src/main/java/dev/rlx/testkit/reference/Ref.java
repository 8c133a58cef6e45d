package dev.rlx.testkit.reference;

import java.util.Arrays;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

/**
 * A float64 reference tensor for tests: row-major data plus dims, with index helpers. Reference results are
 * computed on these in plain loops, independent of the kernels under test.
 */
public record Ref(int[] dims, double[] data) {
    public Ref {
        long n = 1;
        for (int d : dims) {
            n *= d;
        }
        if (n != data.length) {
            throw new IllegalArgumentException("dims " + Arrays.toString(dims) + " need " + n + " values, got " + data.length);
        }
    }

    public static Ref zeros(int... dims) {
        long n = 1;
        for (int d : dims) {
            n *= d;
        }
        return new Ref(dims.clone(), new double[(int) n]);
    }

    /**
     * Uniform values in {@code [lo, hi)}, rounded to float (so f32 inputs are exact) and never exactly 0 (a
     * zero could hide a kernel that ignores an operand).
     */
    public static Ref random(Random r, double lo, double hi, int... dims) {
        Ref t = zeros(dims);
        for (int i = 0; i < t.data.length; i++) {
            float v;
            do {
                v = (float) (lo + (hi - lo) * r.nextDouble());
            } while (v == 0f);
            t.data[i] = v;
        }
        return t;
    }

    /** Random integers in {@code [lo, hi)}. */
    public static Ref randomInts(Random r, int lo, int hi, int... dims) {
        Ref t = zeros(dims);
        for (int i = 0; i < t.data.length; i++) {
            t.data[i] = lo + r.nextInt(hi - lo);
        }
        return t;
    }

    public int size() {
        return data.length;
    }

    public int rank() {
        return dims.length;
    }

    public int dim(int axis) {
        return dims[axis < 0 ? axis + dims.length : axis];
    }

    public int[] strides() {
        int[] s = new int[dims.length];
        int acc = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= dims[i];
        }
        return s;
    }

    public int flat(int... idx) {
        int f = 0;
        for (int i = 0; i < dims.length; i++) {
            if (idx[i] < 0 || idx[i] >= dims[i]) {
                throw new IndexOutOfBoundsException(Arrays.toString(idx) + " in " + Arrays.toString(dims));
            }
            f = f * dims[i] + idx[i];
        }
        return f;
    }

    public int[] unravel(int flat) {
        int[] idx = new int[dims.length];
        for (int i = dims.length - 1; i >= 0; i--) {
            idx[i] = flat % dims[i];
            flat /= dims[i];
        }
        return idx;
    }

    public double at(int... idx) {
        return data[flat(idx)];
    }

    public void set(double v, int... idx) {
        data[flat(idx)] = v;
    }

    public Ref map(DoubleUnaryOperator f) {
        double[] d = new double[data.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = f.applyAsDouble(data[i]);
        }
        return new Ref(dims.clone(), d);
    }

    public float[] floats() {
        float[] f = new float[data.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) data[i];
        }
        return f;
    }

    public int[] ints() {
        int[] f = new int[data.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (int) data[i];
        }
        return f;
    }

    public long[] longs() {
        long[] f = new long[data.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (long) data[i];
        }
        return f;
    }

    /** NumPy-style broadcast read: {@code idx} indexes an output of rank >= this rank. */
    public double atBroadcast(int[] outIdx) {
        int off = outIdx.length - dims.length;
        int f = 0;
        for (int i = 0; i < dims.length; i++) {
            int ix = dims[i] == 1 ? 0 : outIdx[off + i];
            f = f * dims[i] + ix;
        }
        return data[f];
    }
}
