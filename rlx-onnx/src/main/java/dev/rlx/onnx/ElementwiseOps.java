package dev.rlx.onnx;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.Map;

/**
 * Element-wise ONNX ops: math, activations, comparisons, logic, casts. Functions the IR lacks (asin, elu,
 * softplus, ...) are written as their defining formulas over IR ops.
 */
final class ElementwiseOps {
    private ElementwiseOps() {}

    static void register(Map<String, Converter> t) {
        unary(t, "Abs", UnaryKind.ABS);
        unary(t, "Neg", UnaryKind.NEG);
        unary(t, "Exp", UnaryKind.EXP);
        unary(t, "Log", UnaryKind.LOG);
        unary(t, "Sqrt", UnaryKind.SQRT);
        unary(t, "Reciprocal", UnaryKind.RECIPROCAL);
        unary(t, "Sin", UnaryKind.SIN);
        unary(t, "Cos", UnaryKind.COS);
        unary(t, "Tan", UnaryKind.TAN);
        unary(t, "Atan", UnaryKind.ATAN);
        unary(t, "Erf", UnaryKind.ERF);
        unary(t, "Floor", UnaryKind.FLOOR);
        unary(t, "Ceil", UnaryKind.CEIL);
        unary(t, "Round", UnaryKind.ROUND);
        unary(t, "Sign", UnaryKind.SIGN);
        unary(t, "Sigmoid", UnaryKind.SIGMOID);
        unary(t, "Tanh", UnaryKind.TANH);
        unary(t, "Relu", UnaryKind.RELU);
        unary(t, "Not", UnaryKind.NOT);
        t.put("Asin", c -> c.out(asin(c.g(), c.in(0))));
        t.put("Acos", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            c.out(g.sub(Lower.scalar(g, x.dtype(), Math.PI / 2), asin(g, x)));
        });
        t.put("Sinh", c -> c.out(hyperbolic(c.g(), c.in(0), BinaryKind.SUB)));
        t.put("Cosh", c -> c.out(hyperbolic(c.g(), c.in(0), BinaryKind.ADD)));
        t.put("Asinh", c -> { // sign(x) log(|x| + sqrt(x^2 + 1)), exact for negative x too
            Graph g = c.g();
            Value x = c.in(0);
            Value ax = g.abs(x);
            Value one = Lower.scalar(g, x.dtype(), 1);
            c.out(g.mul(g.sign(x), g.log(g.add(ax, g.sqrt(g.add(g.mul(ax, ax), one))))));
        });
        t.put("Acosh", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            Value one = Lower.scalar(g, x.dtype(), 1);
            c.out(g.log(g.add(x, g.sqrt(g.sub(g.mul(x, x), one)))));
        });
        t.put("Atanh", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            Value one = Lower.scalar(g, x.dtype(), 1);
            c.out(g.mul(Lower.scalar(g, x.dtype(), 0.5), g.log(g.div(g.add(one, x), g.sub(one, x)))));
        });

        binary(t, "Add", BinaryKind.ADD);
        binary(t, "Sub", BinaryKind.SUB);
        binary(t, "Mul", BinaryKind.MUL);
        binary(t, "Div", BinaryKind.DIV);
        binary(t, "And", BinaryKind.AND);
        binary(t, "Or", BinaryKind.OR);
        binary(t, "Xor", BinaryKind.XOR);
        compare(t, "Equal", CompareKind.EQ);
        compare(t, "Less", CompareKind.LT);
        compare(t, "LessOrEqual", CompareKind.LE);
        compare(t, "Greater", CompareKind.GT);
        compare(t, "GreaterOrEqual", CompareKind.GE);
        t.put("Pow", ElementwiseOps::pow);
        t.put("Mod", ElementwiseOps::mod);
        t.put("BitShift", ElementwiseOps::bitShift);
        t.put("Max", c -> c.out(variadic(c, BinaryKind.MAX)));
        t.put("Min", c -> c.out(variadic(c, BinaryKind.MIN)));
        t.put("Sum", c -> c.out(variadic(c, BinaryKind.ADD)));
        t.put("Mean", c -> {
            Value s = variadic(c, BinaryKind.ADD);
            c.out(c.g().div(s, Lower.scalar(c.g(), s.dtype(), c.ins().size())));
        });
        t.put("Where", c -> c.out(c.g().where(c.in(0), c.in(1), c.in(2))));
        t.put("Cast", c -> {
            DType to = castTarget(c, c.attrInt("to", 0));
            c.out(Lower.cast(c.g(), to.isFloat() ? c.importer().exactOrSelf(c.in(0)) : c.in(0), to));
        });
        t.put("CastLike", c -> c.out(Lower.cast(c.g(), c.in(0), c.dtype(1))));
        t.put("Identity", c -> c.out(c.in(0)));
        t.put("Dropout", ElementwiseOps::dropout);
        t.put("IsNaN", c -> c.out(c.g().ne(c.in(0), c.in(0))));
        t.put("IsInf", ElementwiseOps::isInf);
        t.put("Clip", ElementwiseOps::clip);

        t.put("LeakyRelu", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            float a = c.attrFloat("alpha", 0.01f);
            Value alpha = Lower.scalar(g, x.dtype(), a);
            // with 0 <= alpha <= 1, alpha*x is below x exactly where x > 0: max(x, alpha*x) is the same values in
            // two f32 ops that element-wise fusion joins with their neighbours (a compare and a where it does not)
            c.out(a >= 0 && a <= 1 && x.dtype().isFloat() ? g.max(x, g.mul(x, alpha))
                    : g.where(g.lt(x, zero(g, x)), g.mul(x, alpha), x));
        });
        t.put("PRelu", ElementwiseOps::prelu);
        t.put("ThresholdedRelu", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            c.out(g.where(g.gt(x, Lower.scalar(g, x.dtype(), c.attrFloat("alpha", 1f))), x, zero(g, x)));
        });
        t.put("Elu", c -> c.out(elu(c.g(), c.in(0), c.attrFloat("alpha", 1f))));
        t.put("Selu", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            Value gamma = Lower.scalar(g, x.dtype(), c.attrFloat("gamma", 1.05070102214813232421875f));
            c.out(g.mul(gamma, elu(g, x, c.attrFloat("alpha", 1.67326319217681884765625f))));
        });
        t.put("Celu", c -> { // max(0, x) + min(0, alpha (exp(x / alpha) - 1))
            Graph g = c.g();
            Value x = c.in(0);
            Value alpha = Lower.scalar(g, x.dtype(), c.attrFloat("alpha", 1f));
            Value one = Lower.scalar(g, x.dtype(), 1);
            Value neg = g.mul(alpha, g.sub(g.exp(g.div(x, alpha)), one));
            c.out(g.add(g.max(zero(g, x), x), g.min(zero(g, x), neg)));
        });
        t.put("HardSigmoid", c -> c.out(hardSigmoid(c.g(), c.in(0), c.attrFloat("alpha", 0.2f), c.attrFloat("beta", 0.5f))));
        t.put("HardSwish", c -> c.out(c.g().mul(c.in(0), hardSigmoid(c.g(), c.in(0), 1f / 6, 0.5f))));
        t.put("Softplus", c -> { // max(x, 0) + log(1 + exp(-|x|)): no overflow for large x
            Graph g = c.g();
            Value x = c.in(0);
            Value one = Lower.scalar(g, x.dtype(), 1);
            c.out(g.add(g.max(x, zero(g, x)), g.log(g.add(one, g.exp(g.neg(g.abs(x)))))));
        });
        t.put("Softsign", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            c.out(g.div(x, g.add(Lower.scalar(g, x.dtype(), 1), g.abs(x))));
        });
        t.put("Shrink", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            DType dt = x.dtype();
            double lambd = c.attrFloat("lambd", 0.5f);
            double bias = c.attrFloat("bias", 0f);
            Value lo = Lower.scalar(g, dt, -lambd);
            Value hi = Lower.scalar(g, dt, lambd);
            Value b = Lower.scalar(g, dt, bias);
            c.out(g.where(g.lt(x, lo), g.add(x, b), g.where(g.gt(x, hi), g.sub(x, b), zero(g, x))));
        });
    }

    private static void unary(Map<String, Converter> t, String name, UnaryKind k) {
        t.put(name, c -> c.out(c.g().unary(k, c.in(0))));
    }

    private static void binary(Map<String, Converter> t, String name, BinaryKind k) {
        t.put(name, c -> {
            Value[] ab = legacyBroadcast(c, c.in(0), c.in(1));
            c.out(c.g().binary(k, ab[0], ab[1]));
        });
    }

    private static void compare(Map<String, Converter> t, String name, CompareKind k) {
        t.put(name, c -> {
            Value[] ab = legacyBroadcast(c, c.in(0), c.in(1));
            c.out(c.g().compare(k, ab[0], ab[1]));
        });
    }

    /**
     * Opsets before 7 broadcast only with {@code broadcast=1}, aligning B with A's dims from {@code axis}
     * (default: B's trailing dims): B gets trailing 1s so that NumPy broadcasting does the same.
     */
    static Value[] legacyBroadcast(NodeCtx c, Value a, Value b) {
        if (c.opset() >= 7 || c.attrInt("broadcast", 0) == 0 || !c.hasAttr("axis")) {
            return new Value[] {a, b};
        }
        int axis = Lower.axis(c, c.attrInt("axis", 0), a.rank());
        int trailing = a.rank() - axis - b.rank();
        if (trailing < 0) {
            throw c.fail("B %s does not fit A %s from axis %d", b.shape(), a.shape(), axis);
        }
        int[] d = new int[b.rank() + trailing];
        System.arraycopy(b.shape().dims(), 0, d, 0, b.rank());
        java.util.Arrays.fill(d, b.rank(), d.length, 1);
        return new Value[] {a, Lower.reshape(c.g(), b, d)};
    }

    private static Value zero(Graph g, Value like) {
        return Lower.scalar(g, like.dtype(), 0);
    }

    /** {@code atan(x / sqrt(1 - x^2))}. */
    private static Value asin(Graph g, Value x) {
        Value one = Lower.scalar(g, x.dtype(), 1);
        return g.atan(g.div(x, g.sqrt(g.sub(one, g.mul(x, x)))));
    }

    /** {@code (e^x op e^-x) / 2}: sinh with SUB, cosh with ADD. */
    private static Value hyperbolic(Graph g, Value x, BinaryKind op) {
        return g.mul(Lower.scalar(g, x.dtype(), 0.5), g.binary(op, g.exp(x), g.exp(g.neg(x))));
    }

    private static Value elu(Graph g, Value x, double alpha) {
        Value one = Lower.scalar(g, x.dtype(), 1);
        Value neg = g.mul(Lower.scalar(g, x.dtype(), alpha), g.sub(g.exp(x), one));
        return g.where(g.gt(x, zero(g, x)), x, neg);
    }

    private static Value hardSigmoid(Graph g, Value x, double alpha, double beta) {
        DType t = x.dtype();
        Value y = g.add(g.mul(x, Lower.scalar(g, t, alpha)), Lower.scalar(g, t, beta));
        return g.max(zero(g, x), g.min(Lower.scalar(g, t, 1), y));
    }

    private static Value variadic(NodeCtx c, BinaryKind k) {
        var in = c.ins();
        if (in.isEmpty()) {
            throw c.fail("needs at least one input");
        }
        Value acc = in.get(0);
        for (int i = 1; i < in.size(); i++) {
            Value[] ab = legacyBroadcast(c, acc, in.get(i));
            acc = c.g().binary(k, ab[0], ab[1]);
        }
        return acc;
    }

    static DType castTarget(NodeCtx c, long code) {
        if (code == OnnxTypes.STRING) {
            throw c.unsupported("dtype STRING", "casting to strings is not supported");
        }
        return OnnxTypes.dtype((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, code)), c.describe() + " target");
    }

    /** ONNX Pow: the result has the base's type; integer bases compute in f64 and round back. */
    private static void pow(NodeCtx c) {
        Graph g = c.g();
        Value[] ab = legacyBroadcast(c, c.in(0), c.in(1));
        Value x = ab[0];
        DType t = x.dtype();
        if (t.isFloat()) {
            c.out(g.pow(x, Lower.cast(g, ab[1], t)));
        } else {
            Value p = g.pow(Lower.cast(g, x, DType.F64), Lower.cast(g, ab[1], DType.F64));
            c.out(g.cast(g.round(p), t));
        }
    }

    /** fmod=0: floored (sign of the divisor); fmod=1: truncated (sign of the dividend), as C's fmod. */
    private static void mod(NodeCtx c) {
        Graph g = c.g();
        Value a = c.in(0);
        Value b = c.in(1);
        Value r = g.mod(a, b);
        if (c.attrInt("fmod", 0) == 0) {
            if (a.dtype().isFloat()) {
                throw c.fail("fmod=0 is only defined for integers; float operands need fmod=1");
            }
            c.out(r);
            return;
        }
        Value z = zero(g, a);
        Value signsDiffer = g.xor(g.lt(a, z), g.lt(b, z));
        c.out(g.where(g.and(g.ne(r, z), signsDiffer), g.sub(r, b), r));
    }

    /** Shifts as multiplication or division by {@code 2^s}, which is what they are on unsigned integers. */
    private static void bitShift(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        Value s = c.in(1);
        DType t = x.dtype();
        if (!t.isUnsigned()) {
            throw c.fail("BitShift needs unsigned operands but x is %s", x.shape());
        }
        Value p = g.cast(g.pow(Lower.scalar(g, DType.F64, 2), Lower.cast(g, s, DType.F64)), DType.I64);
        Value wide = Lower.cast(g, x, DType.I64);
        String dir = c.attrString("direction", "");
        Value r = switch (dir) {
            case "LEFT" -> g.mul(wide, p);
            case "RIGHT" -> g.div(wide, p);
            default -> throw c.fail("direction must be LEFT or RIGHT but is '%s'", dir);
        };
        // Back to the narrow type keeping the low bits, as a shift does.
        Value mask = Lower.scalar(g, DType.I64, t == DType.U8 ? 0xFF : 0xFFFFFFFFL);
        c.out(g.cast(g.mod(r, g.add(mask, Lower.scalar(g, DType.I64, 1))), t));
    }

    private static void dropout(NodeCtx c) {
        boolean training = false;
        if (c.opset() >= 12 && c.has(2)) {
            training = Tensors.longs(c.constant(2))[0] != 0;
        } else if (c.opset() < 7) {
            training = c.attrInt("is_test", 0) == 0 && c.opset() < 7 && c.hasAttr("is_test");
        }
        if (training) {
            throw c.unsupported("Dropout(training_mode)", "training-mode dropout draws random masks; not supported");
        }
        Value x = c.in(0);
        c.out(x);
        if (c.wantsOutput(1)) {
            c.out(1, c.g().constant(Tensors.fill(Tensor.scalar(DType.BOOL, 1), x.shape().dims())));
        }
    }

    private static void isInf(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        boolean neg = c.attrInt("detect_negative", 1) != 0;
        boolean pos = c.attrInt("detect_positive", 1) != 0;
        Value p = g.eq(x, Lower.scalar(g, x.dtype(), Double.POSITIVE_INFINITY));
        Value n = g.eq(x, Lower.scalar(g, x.dtype(), Double.NEGATIVE_INFINITY));
        if (pos && neg) {
            c.out(g.or(p, n));
        } else if (pos) {
            c.out(p);
        } else if (neg) {
            c.out(n);
        } else {
            c.out(g.and(p, n)); // all false
        }
    }

    private static void clip(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        DType t = x.dtype();
        Value lo = null;
        Value hi = null;
        if (c.opset() < 11) {
            if (c.hasAttr("min")) {
                lo = Lower.scalar(g, t, c.attrFloat("min", 0));
            }
            if (c.hasAttr("max")) {
                hi = Lower.scalar(g, t, c.attrFloat("max", 0));
            }
        } else {
            lo = c.has(1) ? Lower.cast(g, c.in(1), t) : null;
            hi = c.has(2) ? Lower.cast(g, c.in(2), t) : null;
        }
        Value y = x;
        if (lo != null) {
            y = g.max(y, lo);
        }
        if (hi != null) {
            y = g.min(y, hi);
        }
        c.out(y);
    }

    /** PRelu; before opset 7 a 1-D slope of size C applies per channel (dim 1). */
    private static void prelu(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        Value slope = c.in(1);
        if (slope.rank() == 1 && x.rank() > 2 && slope.dim(0) == x.dim(1) && slope.dim(0) != x.dim(x.rank() - 1)) {
            int[] d = new int[x.rank() - 1];
            java.util.Arrays.fill(d, 1);
            d[0] = slope.dim(0);
            slope = Lower.reshape(g, slope, d);
        }
        c.out(g.where(g.lt(x, zero(g, x)), g.mul(x, slope), x));
    }
}
