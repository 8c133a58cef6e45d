package dev.rlx.testkit.reference;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import java.util.List;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * Unary, binary, compare, where, cast and fused programs, per element over broadcast operands: floats in
 * double through {@link ElementRefs}, integers in long (wrapping), each result stored once in the dtype.
 */
final class ElementwiseReference {
    private ElementwiseReference() {}

    static RefTensor unary(UnaryKind k, RefTensor x, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        DoubleUnaryOperator f = ElementRefs.ref(k);
        for (int i = 0; i < y.size(); i++) {
            if (x.integral()) {
                y.setLong(i, unary(k, x.getLong(i)));
            } else {
                y.set(i, f.applyAsDouble(x.get(i)));
            }
        }
        return y;
    }

    /** The integer kinds (the NUMERIC domain); NEG and ABS of the most negative value wrap. */
    private static long unary(UnaryKind k, long v) {
        return switch (k) {
            case RELU -> Math.max(v, 0);
            case NEG -> -v;
            case ABS -> Math.abs(v);
            case SIGN -> Long.signum(v);
            default -> throw new ReferenceException(k.label() + " is not defined on integers");
        };
    }

    static RefTensor binary(BinaryKind k, RefTensor a, RefTensor b, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int[] ma = Index.broadcast(a.shape.dims(), out.dims());
        int[] mb = Index.broadcast(b.shape.dims(), out.dims());
        DoubleBinaryOperator f = ElementRefs.ref(k);
        for (int i = 0; i < y.size(); i++) {
            if (a.integral()) {
                y.setLong(i, binary(k, a.getLong(ma[i]), b.getLong(mb[i])));
            } else {
                y.set(i, f.applyAsDouble(a.get(ma[i]), b.get(mb[i])));
            }
        }
        return y;
    }

    /** Integer arithmetic as {@code BinaryKind} defines it: wrapping; DIV truncates and MOD floors, 0 for b = 0. */
    private static long binary(BinaryKind k, long a, long b) {
        return switch (k) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> b == 0 ? 0 : b == -1 ? -a : a / b;
            case MOD -> b == 0 ? 0 : Math.floorMod(a, b);
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            default -> throw new ReferenceException(k.label() + " is not defined on integers");
        };
    }

    static RefTensor compare(CompareKind k, RefTensor a, RefTensor b, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int[] ma = Index.broadcast(a.shape.dims(), out.dims());
        int[] mb = Index.broadcast(b.shape.dims(), out.dims());
        for (int i = 0; i < y.size(); i++) {
            int c = a.integral() ? Long.compare(a.getLong(ma[i]), b.getLong(mb[i])) : 0;
            double x = a.get(ma[i]);
            double z = b.get(mb[i]);
            boolean r = a.integral() ? switch (k) {
                case EQ -> c == 0;
                case NE -> c != 0;
                case LT -> c < 0;
                case LE -> c <= 0;
                case GT -> c > 0;
                case GE -> c >= 0;
            } : compare(k, x, z);
            y.set(i, r ? 1 : 0);
        }
        return y;
    }

    /** {@code k(x, z)} of floats; IEEE: every comparison with NaN is false except NE. */
    static boolean compare(CompareKind k, double x, double z) {
        return switch (k) {
            case EQ -> x == z;
            case NE -> x != z;
            case LT -> x < z;
            case LE -> x <= z;
            case GT -> x > z;
            case GE -> x >= z;
        };
    }

    static RefTensor where(RefTensor cond, RefTensor a, RefTensor b, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int[] mc = Index.broadcast(cond.shape.dims(), out.dims());
        int[] ma = Index.broadcast(a.shape.dims(), out.dims());
        int[] mb = Index.broadcast(b.shape.dims(), out.dims());
        for (int i = 0; i < y.size(); i++) {
            if (cond.get(mc[i]) != 0) {
                y.copy(i, a, ma[i]);
            } else {
                y.copy(i, b, mb[i]);
            }
        }
        return y;
    }

    /**
     * {@code Op.Cast}: float to integer truncates and saturates (NaN to 0), integer to integer wraps, integer to
     * float rounds once, to BOOL is {@code != 0}, BOOL is 0 or 1, real to C64 has imaginary part 0.
     */
    static RefTensor cast(RefTensor x, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        DType from = x.dtype();
        for (int i = 0; i < y.size(); i++) {
            if (from.isComplex()) {
                y.copy(i, x, i);
            } else if (x.integral()) {
                y.setLong(i, x.getLong(i));
            } else if (from.isBool() && y.integral()) {
                y.setLong(i, x.getLong(i));
            } else {
                y.set(i, x.get(i));
            }
        }
        return y;
    }

    /** The program evaluated in double per element of the broadcast operands, the result stored once. */
    static RefTensor fused(ElementwiseProgram p, List<RefTensor> operands, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int[][] maps = new int[operands.size()][];
        for (int j = 0; j < maps.length; j++) {
            maps[j] = Index.broadcast(operands.get(j).shape.dims(), out.dims());
        }
        double[] values = new double[p.inputs() + p.steps().size()];
        for (int i = 0; i < y.size(); i++) {
            for (int j = 0; j < maps.length; j++) {
                values[j] = operands.get(j).get(maps[j][i]);
            }
            y.set(i, evaluate(p, values));
        }
        return y;
    }

    /** Runs {@code p}'s steps on {@code values}, whose first {@code p.inputs()} entries are set; returns the last. */
    static double evaluate(ElementwiseProgram p, double[] values) {
        int v = p.inputs();
        for (ElementwiseProgram.Step s : p.steps()) {
            double a = values[s.a()];
            // a mask is 1 or 0, as the reference's bool tensors hold them
            values[v++] = s.isUnary() ? ElementRefs.ref(s.unary()).applyAsDouble(a)
                    : s.isBinary() ? ElementRefs.ref(s.binary()).applyAsDouble(a, values[s.b()])
                    : s.isCompare() ? (compare(s.compare(), a, values[s.b()]) ? 1 : 0)
                    : a != 0 ? values[s.b()] : values[s.c()];
        }
        return values[v - 1];
    }
}
