package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.Elements;
import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.UnaryKind;
import java.lang.foreign.MemorySegment;

/**
 * Unary, binary, compare, where and cast kernels. Operands are read through a {@link Walk}, so broadcasting
 * costs a stride of 0, and a same-shape op is one flat loop. f32 unary and binary ops run on the Vector API
 * where every operand of a row is contiguous or a broadcast scalar; other dtypes and layouts use the scalar
 * definitions in {@link ScalarMath}.
 */
public final class ElementwiseKernels {
    private ElementwiseKernels() {}

    /** Elements per parallel work unit. */
    static final int CHUNK = 16 * 1024;

    // ---------------------------------------------------------------- factories

    public static Kernel unary(Node n, LowerContext ctx) {
        UnaryKind k = ((Op.Unary) n.op()).op();
        Buf x = ctx.in(n, 0);
        Buf y = ctx.out(n, 0);
        Walk w = Walk.of(y.shape().dims(), Walk.contiguous(y.shape()), Walk.contiguous(x.shape()));
        return new Elementwise(w, ctx.parallel(), y, new Buf[] {x}) {
            @Override
            void row(long[] o, long[] s, int start, int len) {
                if (y.dtype() == DType.F32) {
                    unaryF32(k, x.seg(), o[1], s[1], y.seg(), o[0], len);
                } else {
                    for (int j = 0; j < len; j++) {
                        long xi = o[1] + j * s[1];
                        long yi = o[0] + j;
                        if (Elements.integral(y.dtype())) {
                            Elements.setLong(y.seg(), yi, y.dtype(), ScalarMath.unary(k, Elements.getLong(x.seg(), xi, x.dtype())));
                        } else {
                            Elements.setDouble(y.seg(), yi, y.dtype(), ScalarMath.unary(k, Elements.getDouble(x.seg(), xi, x.dtype())));
                        }
                    }
                }
            }
        };
    }

    public static Kernel binary(Node n, LowerContext ctx) {
        BinaryKind k = ((Op.Binary) n.op()).op();
        Buf a = ctx.in(n, 0);
        Buf b = ctx.in(n, 1);
        Buf y = ctx.out(n, 0);
        int[] d = y.shape().dims();
        Walk w = Walk.of(d, Walk.contiguous(y.shape()), Walk.broadcast(a.shape(), d), Walk.broadcast(b.shape(), d));
        boolean integral = Elements.integral(y.dtype());
        return new Elementwise(w, ctx.parallel(), y, new Buf[] {a, b}) {
            @Override
            void row(long[] o, long[] s, int start, int len) {
                if (y.dtype() == DType.F32 && BinaryF32Loops.has(k)) {
                    binaryF32(k, a.seg(), o[1], s[1], b.seg(), o[2], s[2], y.seg(), o[0], len);
                    return;
                }
                DType t = a.dtype();
                for (int j = 0; j < len; j++) {
                    long ai = o[1] + j * s[1];
                    long bi = o[2] + j * s[2];
                    if (integral) {
                        Elements.setLong(y.seg(), o[0] + j, t,
                                ScalarMath.binary(k, Elements.getLong(a.seg(), ai, t), Elements.getLong(b.seg(), bi, t)));
                    } else {
                        Elements.setDouble(y.seg(), o[0] + j, t,
                                ScalarMath.binary(k, Elements.getDouble(a.seg(), ai, t), Elements.getDouble(b.seg(), bi, t)));
                    }
                }
            }
        };
    }

    public static Kernel compare(Node n, LowerContext ctx) {
        CompareKind k = ((Op.Compare) n.op()).op();
        Buf a = ctx.in(n, 0);
        Buf b = ctx.in(n, 1);
        Buf y = ctx.out(n, 0);
        int[] d = y.shape().dims();
        Walk w = Walk.of(d, Walk.contiguous(y.shape()), Walk.broadcast(a.shape(), d), Walk.broadcast(b.shape(), d));
        DType t = a.dtype();
        boolean integral = Elements.integral(t);
        return new Elementwise(w, ctx.parallel(), y, new Buf[] {a, b}) {
            @Override
            void row(long[] o, long[] s, int start, int len) {
                for (int j = 0; j < len; j++) {
                    long ai = o[1] + j * s[1];
                    long bi = o[2] + j * s[2];
                    boolean r;
                    if (t == DType.F32) {
                        r = compare(k, a.seg().getAtIndex(JAVA_FLOAT, ai), b.seg().getAtIndex(JAVA_FLOAT, bi));
                    } else if (integral) {
                        r = compare(k, Elements.getLong(a.seg(), ai, t), Elements.getLong(b.seg(), bi, t));
                    } else {
                        r = compare(k, Elements.getDouble(a.seg(), ai, t), Elements.getDouble(b.seg(), bi, t));
                    }
                    y.seg().set(JAVA_BYTE, o[0] + j, (byte) (r ? 1 : 0));
                }
            }
        };
    }

    public static Kernel where(Node n, LowerContext ctx) {
        Buf c = ctx.in(n, 0);
        Buf a = ctx.in(n, 1);
        Buf b = ctx.in(n, 2);
        Buf y = ctx.out(n, 0);
        int[] d = y.shape().dims();
        Walk w = Walk.of(d, Walk.contiguous(y.shape()), Walk.broadcast(c.shape(), d), Walk.broadcast(a.shape(), d),
                Walk.broadcast(b.shape(), d));
        long es = y.dtype().byteSize();
        return new Elementwise(w, ctx.parallel(), y, new Buf[] {c, a, b}) {
            @Override
            void row(long[] o, long[] s, int start, int len) {
                for (int j = 0; j < len; j++) {
                    boolean take = c.seg().get(JAVA_BYTE, o[1] + j * s[1]) != 0;
                    long src = take ? o[2] + j * s[2] : o[3] + j * s[3];
                    MemorySegment.copy(take ? a.seg() : b.seg(), src * es, y.seg(), (o[0] + j) * es, es);
                }
            }
        };
    }

    public static Kernel cast(Node n, LowerContext ctx) {
        Buf x = ctx.in(n, 0);
        Buf y = ctx.out(n, 0);
        DType from = x.dtype();
        DType to = y.dtype();
        Walk w = Walk.of(y.shape().dims(), Walk.contiguous(y.shape()), Walk.contiguous(x.shape()));
        return new Elementwise(w, ctx.parallel(), y, new Buf[] {x}) {
            @Override
            void row(long[] o, long[] s, int start, int len) {
                if (from == to) {
                    long es = from.byteSize();
                    MemorySegment.copy(x.seg(), o[1] * es, y.seg(), o[0] * es, len * es);
                    return;
                }
                for (int j = 0; j < len; j++) {
                    long xi = o[1] + j;
                    long yi = o[0] + j;
                    if (from == DType.C64) { // to C64 only (checked by the shape rule)
                        MemorySegment.copy(x.seg(), xi * 8, y.seg(), yi * 8, 8);
                    } else if (Elements.integral(from) && Elements.integral(to)) {
                        Elements.setLong(y.seg(), yi, to, Elements.getLong(x.seg(), xi, from));
                    } else if (Elements.integral(from) && from != DType.BOOL) {
                        // long -> double is exact below 2^53; beyond, one rounding to double then to the target
                        Elements.setDouble(y.seg(), yi, to, (double) Elements.getLong(x.seg(), xi, from));
                    } else {
                        Elements.setDouble(y.seg(), yi, to, Elements.getDouble(x.seg(), xi, from));
                    }
                }
            }
        };
    }

    /** A fused chain of f32 element-wise ops, evaluated in one pass. */
    public static Kernel fused(Node n, LowerContext ctx) {
        return FusedKernel.of(n, ctx);
    }

    private static boolean compare(CompareKind k, double a, double b) {
        return switch (k) {
            case EQ -> a == b;
            case NE -> a != b;
            case LT -> a < b;
            case LE -> a <= b;
            case GT -> a > b;
            case GE -> a >= b;
        };
    }

    private static boolean compare(CompareKind k, long a, long b) {
        return switch (k) {
            case EQ -> a == b;
            case NE -> a != b;
            case LT -> a < b;
            case LE -> a <= b;
            case GT -> a > b;
            case GE -> a >= b;
        };
    }

    // ---------------------------------------------------------------- f32 vector loops

    /** {@code y[yo + j] = op(x[xo + j*xs])}; vectorised when {@code xs == 1}. */
    static void unaryF32(UnaryKind k, MemorySegment x, long xo, long xs, MemorySegment y, long yo, int len) {
        int j = xs == 1 ? UnaryF32Loops.run(k, x, xo, y, yo, len) : 0;
        for (; j < len; j++) {
            y.setAtIndex(JAVA_FLOAT, yo + j, (float) ScalarMath.unary(k, x.getAtIndex(JAVA_FLOAT, xo + j * xs)));
        }
    }

    /** {@code y = op(a, b)} over a row; vectorised when each operand is contiguous or a broadcast scalar. */
    static void binaryF32(BinaryKind k, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs,
                          MemorySegment y, long yo, int len) {
        int j = BinaryF32Loops.run(k, a, ao, as, b, bo, bs, y, yo, len);
        for (; j < len; j++) {
            float x = a.getAtIndex(JAVA_FLOAT, ao + j * as);
            float z = b.getAtIndex(JAVA_FLOAT, bo + j * bs);
            y.setAtIndex(JAVA_FLOAT, yo + j, binaryScalar(k, x, z));
        }
    }

    static float binaryScalar(BinaryKind k, float a, float b) {
        return switch (k) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> a / b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            default -> (float) ScalarMath.binary(k, a, b);
        };
    }

    // ---------------------------------------------------------------- driver

    /**
     * Runs {@link #row} over the walk in parallel units of at most {@link #CHUNK} elements. Operand 0 of the
     * walk is the output. Subclasses only write the per-row loop.
     */
    abstract static class Elementwise implements Kernel, RangeTask {
        private final Walk walk;
        private final Parallel parallel;
        private final int chunksPerRow;
        private final int units;
        private final int operands;
        // per-thread scratch would allocate; offsets are recomputed into these per call of range instead
        private final ThreadLocal<long[][]> scratch;

        Elementwise(Walk walk, Parallel parallel, Buf out, Buf[] in) {
            this.walk = walk;
            this.parallel = parallel;
            this.operands = in.length + 1;
            this.chunksPerRow = Math.max(1, (walk.inner() + CHUNK - 1) / CHUNK);
            long u = (long) walk.rows() * chunksPerRow;
            if (walk.elements() == 0) {
                u = 0;
            }
            this.units = (int) Math.min(Integer.MAX_VALUE, u);
            this.scratch = ThreadLocal.withInitial(() -> new long[2][operands]);
        }

        @Override
        public final void run() {
            parallel.parallelFor(units, Math.max(1, CHUNK / Math.max(1, Math.min(walk.inner(), CHUNK))), this);
        }

        @Override
        public final void range(int from, int to) {
            long[][] t = scratch.get();
            long[] o = t[0];
            long[] s = t[1];
            for (int k = 0; k < operands; k++) {
                s[k] = walk.innerStride(k);
            }
            for (int u = from; u < to; u++) {
                int r = u / chunksPerRow;
                int start = (u % chunksPerRow) * CHUNK;
                int len = Math.min(CHUNK, walk.inner() - start);
                for (int k = 0; k < operands; k++) {
                    o[k] = walk.rowOffset(k, r) + start * s[k];
                }
                row(o, s, start, len);
            }
        }

        /**
         * One row piece: operand k's element j is at {@code o[k] + j * s[k]} (k = 0 is the output, whose
         * stride is 1), for j in {@code [0, len)}.
         */
        abstract void row(long[] o, long[] s, int start, int len);
    }
}
