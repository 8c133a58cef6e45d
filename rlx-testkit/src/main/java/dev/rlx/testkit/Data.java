package dev.rlx.testkit;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.testkit.reference.TensorData;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

/**
 * Makes the tensor fed to one input or param of a case, from the case's seeded {@link Random}, so a case's data
 * is the same on every run and every backend. Random values are never zero unless a generator says so (a zero
 * could hide a kernel that ignores an operand).
 */
@FunctionalInterface
public interface Data {
    /** The tensor for a slot of {@code shape}. */
    Tensor generate(Shape shape, Random random);

    /** {@link #uniform uniform(-1, 1)}: what a slot gets when its case names no generator. */
    static Data standard() {
        return uniform(-1, 1);
    }

    /**
     * Floats uniform in {@code [lo, hi)} as stored in the dtype, redrawn when they store as zero; C64 both parts
     * so. Integers uniform in {@code [ceil(lo), ceil(hi))} within the dtype's range, zero excluded; BOOL fair coins.
     */
    static Data uniform(double lo, double hi) {
        return (shape, r) -> {
            DType t = shape.dtype();
            if (t.isBool()) {
                return bools().generate(shape, r);
            }
            if (t.isInteger()) {
                long a = Math.max((long) Math.ceil(lo), integerMin(t));
                long b = Math.min((long) Math.ceil(hi), integerMax(t) + 1);
                return integers(shape, r, a, b, false);
            }
            int n = count(shape) * (t.isComplex() ? 2 : 1);
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                do {
                    v[i] = lo + (hi - lo) * r.nextDouble();
                } while (stored(v[i], t) == 0);
            }
            return TensorData.of(shape, v);
        };
    }

    /** Integers uniform in {@code [lo, hi)}, zero included (indices, small values with many ties), in any dtype. */
    static Data ints(long lo, long hi) {
        return (shape, r) -> integers(shape, r, lo, hi, true);
    }

    /** Fair coins. */
    static Data bools() {
        return (shape, r) -> {
            long[] v = new long[count(shape)];
            for (int i = 0; i < v.length; i++) {
                v[i] = r.nextBoolean() ? 1 : 0;
            }
            return TensorData.ofLongs(shape, v);
        };
    }

    /** Exactly these values, converted to the dtype as a cast converts (C64: (re, im) pairs). */
    static Data values(double... values) {
        return (shape, r) -> TensorData.of(shape, values.clone());
    }

    /** Exactly these integers (all 64 bits), wrapped to an integer dtype. */
    static Data longs(long... values) {
        return (shape, r) -> TensorData.ofLongs(shape, values.clone());
    }

    /** This generator's values with {@code value} written at the given flat positions (NaN, infinities...). */
    default Data with(double value, int... positions) {
        return (shape, r) -> {
            double[] v = TensorData.doubles(generate(shape, r));
            for (int p : positions) {
                v[p] = value;
            }
            return TensorData.of(shape, v);
        };
    }

    /** This generator's values passed through {@code f} (then stored in the dtype again). */
    default Data map(DoubleUnaryOperator f) {
        return (shape, r) -> {
            double[] v = TensorData.doubles(generate(shape, r));
            for (int i = 0; i < v.length; i++) {
                v[i] = f.applyAsDouble(v[i]);
            }
            return TensorData.of(shape, v);
        };
    }

    private static Tensor integers(Shape shape, Random r, long lo, long hi, boolean zeros) {
        if (shape.elementCount() > 0 && (hi <= lo || (!zeros && lo == 0 && hi == 1))) {
            throw new IllegalArgumentException("no integers to draw in [" + lo + ", " + hi + ") for " + shape);
        }
        long[] v = new long[count(shape)];
        for (int i = 0; i < v.length; i++) {
            do {
                v[i] = lo + (long) ((hi - lo) * r.nextDouble());
            } while (!zeros && v[i] == 0);
        }
        if (shape.dtype().isInteger() || shape.dtype().isBool()) {
            return TensorData.ofLongs(shape, v);
        }
        double[] d = new double[v.length * (shape.dtype().isComplex() ? 2 : 1)];
        for (int i = 0; i < v.length; i++) {
            d[shape.dtype().isComplex() ? 2 * i : i] = v[i];
        }
        return TensorData.of(shape, d);
    }

    private static int count(Shape s) {
        return Math.toIntExact(s.elementCount());
    }

    private static double stored(double v, DType t) {
        return switch (t) {
            case F64 -> v;
            case F32, C64 -> (float) v;
            default -> Tensor.scalar(t, v).getDouble(0);
        };
    }

    private static long integerMin(DType t) {
        return switch (t) {
            case I8 -> Byte.MIN_VALUE;
            case I16 -> Short.MIN_VALUE;
            case I32 -> Integer.MIN_VALUE;
            case I64 -> Long.MIN_VALUE / 2;
            default -> 0;
        };
    }

    private static long integerMax(DType t) {
        return switch (t) {
            case I8 -> Byte.MAX_VALUE;
            case U8 -> 255;
            case I16 -> Short.MAX_VALUE;
            case I32 -> Integer.MAX_VALUE;
            case U32 -> 0xFFFFFFFFL;
            default -> Long.MAX_VALUE / 2;
        };
    }
}
