package dev.rlx.cpu.kernels;

import dev.rlx.ir.UnaryKind;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The contiguous f32 vector loop of each unary function, one small method per function. The JIT compiles
 * each loop on its own with the vector expression inlined, so no vector is boxed; a shared loop that
 * dispatched per chunk (or one method holding every loop) outgrows the inlining budget and allocates a
 * vector object per chunk. Only segments and offsets cross method boundaries here.
 */
final class UnaryF32Loops {
    private UnaryF32Loops() {}

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    /**
     * Applies {@code k} to {@code x[xo..]} into {@code y[yo..]} for the whole vectors in {@code len}; returns
     * how many elements were done (the caller finishes the tail), 0 for kinds with no vector form.
     */
    static int run(UnaryKind k, MemorySegment x, long xo, MemorySegment y, long yo, int len) {
        int n = F.loopBound(len);
        switch (k) {
            case RELU -> relu(x, xo, y, yo, n);
            case GELU -> gelu(x, xo, y, yo, n);
            case GELU_TANH -> geluTanh(x, xo, y, yo, n);
            case SILU -> silu(x, xo, y, yo, n);
            case SIGMOID -> sigmoid(x, xo, y, yo, n);
            case TANH -> tanh(x, xo, y, yo, n);
            case EXP -> exp(x, xo, y, yo, n);
            case LOG -> log(x, xo, y, yo, n);
            case SQRT -> sqrt(x, xo, y, yo, n);
            case RSQRT -> rsqrt(x, xo, y, yo, n);
            case RECIPROCAL -> reciprocal(x, xo, y, yo, n);
            case NEG -> neg(x, xo, y, yo, n);
            case ABS -> abs(x, xo, y, yo, n);
            case SIGN -> sign(x, xo, y, yo, n);
            case SIN -> trig(VectorTrig.UnaryFn.SIN, x, xo, y, yo, n);
            case COS -> trig(VectorTrig.UnaryFn.COS, x, xo, y, yo, n);
            case TAN -> trig(VectorTrig.UnaryFn.TAN, x, xo, y, yo, n);
            case ATAN -> atan(x, xo, y, yo, n);
            case ERF -> erf(x, xo, y, yo, n);
            case ROUND, FLOOR, CEIL, NOT -> n = 0; // scalar only
        }
        return n;
    }

    private static void relu(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            v.max(0f).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void gelu(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            long at = (yo + j) * 4; // y's vector is written right after: 2^k for exp(-x^2) goes there first
            VectorMath.gelu(v, y, at).intoMemorySegment(y, at, LE);
        }
    }

    private static void geluTanh(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorMath.geluTanh(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void silu(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorMath.silu(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void sigmoid(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorMath.sigmoid(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void tanh(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorMath.tanh(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void exp(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorMath.exp(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void log(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorMath.log(v, y, (yo + j) * 4).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void sqrt(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            v.sqrt().intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void rsqrt(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            FloatVector.broadcast(F, 1f).div(v.sqrt()).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void reciprocal(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            FloatVector.broadcast(F, 1f).div(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void neg(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            v.neg().intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void abs(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            v.abs().intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void sign(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorMath.sign(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void sin(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorTrig.sinReduced(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void cos(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorTrig.cosReduced(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void tan(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorTrig.tanReduced(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    /**
     * sin, cos or tan: the plain loop, or where some operand is beyond the reduction's exact range the loop that
     * patches such lanes. The check is made here, outside the loops: inside, it pushed a loop past C2's node
     * budget for inlining, which then boxed a vector per iteration.
     */
    private static void trig(VectorTrig.UnaryFn fn, MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        if (VectorTrig.anyBeyondReduction(x, xo, n)) {
            trigBeyondReduction(fn, x, xo, y, yo, n);
            return;
        }
        switch (fn) {
            case SIN -> sin(x, xo, y, yo, n);
            case COS -> cos(x, xo, y, yo, n);
            case TAN -> tan(x, xo, y, yo, n);
        }
    }

    /**
     * sin, cos or tan where some operand is beyond the reduction's exact range (rare: such lanes are recomputed
     * with {@code StrictMath}, which may allocate); kept apart so the common loops above stay small enough for
     * C2 to compile without boxing a vector.
     */
    private static void trigBeyondReduction(VectorTrig.UnaryFn fn, MemorySegment x, long xo, MemorySegment y, long yo,
                                            int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            FloatVector r = switch (fn) {
                case SIN -> VectorTrig.sin(v);
                case COS -> VectorTrig.cos(v);
                case TAN -> VectorTrig.tan(v);
            };
            r.intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void atan(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorTrig.atan(v).intoMemorySegment(y, (yo + j) * 4, LE);
        }
    }

    private static void erf(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        for (int j = 0; j < n; j += W) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            long at = (yo + j) * 4;
            VectorMath.erf(v, y, at).intoMemorySegment(y, at, LE);
        }
    }
}
