package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.quant.WeightFormat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Op.QuantMatMul}: {@code y[m, j] = x[m, :] . dequant(w[j, :])}, the weights read in place in their ggml
 * blocks. Parallel over weight rows j; each row is read once per call and applied to every row of x (x rows in
 * tiles of {@link #TILE}, which re-read the row from L1), so a decode step over a batch of sequences pays for the
 * weights once.
 *
 * <p>Q8_0 and Q4_0 are decoded in registers (bytes widened to float lanes, the block scale applied to the block's
 * partial sums). F32 rows are read directly; F16 and BF16 rows are widened into a per-thread float row by integer
 * operations on their bits (through memory, no reinterpretation); the other formats (Q4_1, Q5_0, Q5_1 and the
 * K-quants) are decoded per row by their reference decoder into that row. Every output is one fixed sequence of
 * operations (block order, lane-order sum), whatever the thread count or tiling, so runs give the same bits.
 */
public final class QuantMatMulKernel implements Kernel, RangeTask {
    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int L = F.length();
    /** Bytes holding one vector's worth of int8 codes. */
    private static final VectorSpecies<Byte> B = ByteVector.SPECIES_PREFERRED.withShape(VectorShape.forBitSize(L * 8));
    private static final VectorSpecies<Short> S = ShortVector.SPECIES_PREFERRED.withShape(VectorShape.forBitSize(L * 16));
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort LE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    static final int TILE = 4;

    private final WeightFormat format;
    private final MemorySegment x;
    private final MemorySegment w;
    private final MemorySegment y;
    private final int rows; // M
    private final int n;    // N
    private final int k;    // K
    private final long rowBytes;
    private final Parallel parallel;
    /** Per worker thread: one decoded weight row (native floats), for the formats not decoded in registers. */
    private final ThreadLocal<MemorySegment> rowScratch;
    private final ThreadLocal<float[]> rowArray;

    private QuantMatMulKernel(Node node, LowerContext ctx) {
        this.format = ((Op.QuantMatMul) node.op()).format();
        Buf xb = ctx.in(node, 0);
        Buf wb = ctx.in(node, 1);
        this.x = xb.seg();
        this.w = wb.seg();
        this.y = ctx.out(node, 0).seg();
        this.k = xb.shape().dim(xb.shape().rank() - 1);
        this.rows = Math.toIntExact(xb.size() / Math.max(1, k));
        this.n = wb.shape().dim(0);
        this.rowBytes = wb.shape().dim(1);
        this.parallel = ctx.parallel();
        long scratchBytes = 4L * (F.loopBound(k) + 2L * L);
        this.rowScratch = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(scratchBytes, 64));
        this.rowArray = ThreadLocal.withInitial(() -> new float[k]);
    }

    public static Kernel of(Node node, LowerContext ctx) {
        QuantMatMulKernel q = new QuantMatMulKernel(node, ctx);
        return q.rows == 0 || q.n == 0 ? Kernels.NONE : q;
    }

    @Override
    public void run() {
        // grain: about 256 KiB of weights per chunk, so a chunk amortises its hand-off
        parallel.parallelFor(n, (int) Math.max(1, Math.min(n, (256L << 10) / Math.max(1, rowBytes))), this);
    }

    @Override
    public void range(int from, int to) {
        for (int j = from; j < to; j++) {
            long wo = j * rowBytes;
            switch (format) {
                case Q8_0 -> {
                    for (int m = 0; m < rows; m += TILE) {
                        q8Rows(wo, j, m, Math.min(TILE, rows - m));
                    }
                }
                case Q4_0 -> {
                    for (int m = 0; m < rows; m += TILE) {
                        q4Rows(wo, j, m, Math.min(TILE, rows - m));
                    }
                }
                case F32 -> floatRows(w, wo, j);
                case F16, BF16 -> {
                    MemorySegment row = rowScratch.get();
                    widenHalfRow(wo, row);
                    floatRows(row, 0, j);
                }
                default -> {
                    float[] row = rowArray.get();
                    format.decode(w, wo, row, 0, k);
                    MemorySegment seg = rowScratch.get();
                    MemorySegment.copy(row, 0, seg, ValueLayout.JAVA_FLOAT, 0, k);
                    floatRows(seg, 0, j);
                }
            }
        }
    }

    // ---------------------------------------------------------------- Q8_0: {f16 d; int8 q[32]}, x = d q

    private void q8Rows(long wo, int j, int m0, int mr) {
        FloatVector a0 = FloatVector.zero(F);
        FloatVector a1 = a0;
        FloatVector a2 = a0;
        FloatVector a3 = a0;
        long blocks = k / 32;
        for (long b = 0; b < blocks; b++) {
            long bo = wo + b * 34;
            FloatVector dv = FloatVector.broadcast(F, Float.float16ToFloat(w.get(LE_SHORT, bo)));
            FloatVector p0 = FloatVector.zero(F);
            FloatVector p1 = p0;
            FloatVector p2 = p0;
            FloatVector p3 = p0;
            for (int s = 0; s < 32; s += L) {
                FloatVector q = (FloatVector) ByteVector.fromMemorySegment(B, w, bo + 2 + s, LE)
                        .convertShape(VectorOperators.B2F, F, 0);
                long xi = b * 32 + s;
                p0 = q.fma(xAt(m0, xi), p0);
                if (mr > 1) {
                    p1 = q.fma(xAt(m0 + 1, xi), p1);
                }
                if (mr > 2) {
                    p2 = q.fma(xAt(m0 + 2, xi), p2);
                }
                if (mr > 3) {
                    p3 = q.fma(xAt(m0 + 3, xi), p3);
                }
            }
            a0 = p0.fma(dv, a0);
            a1 = p1.fma(dv, a1);
            a2 = p2.fma(dv, a2);
            a3 = p3.fma(dv, a3);
        }
        store(j, m0, mr, a0, a1, a2, a3);
    }

    // ------------------------------------------------ Q4_0: {f16 d; u8 qs[16]}, x_i = d (nibble_i - 8), i < 16 low

    private void q4Rows(long wo, int j, int m0, int mr) {
        FloatVector a0 = FloatVector.zero(F);
        FloatVector a1 = a0;
        FloatVector a2 = a0;
        FloatVector a3 = a0;
        long blocks = k / 32;
        for (long b = 0; b < blocks; b++) {
            long bo = wo + b * 18;
            FloatVector dv = FloatVector.broadcast(F, Float.float16ToFloat(w.get(LE_SHORT, bo)));
            FloatVector p0 = FloatVector.zero(F);
            FloatVector p1 = p0;
            FloatVector p2 = p0;
            FloatVector p3 = p0;
            for (int s = 0; s < 16; s += L) {
                ByteVector codes = ByteVector.fromMemorySegment(B, w, bo + 2 + s, LE);
                FloatVector lo = (FloatVector) codes.and((byte) 0x0F).sub((byte) 8).convertShape(VectorOperators.B2F, F, 0);
                FloatVector hi = (FloatVector) codes.lanewise(VectorOperators.LSHR, 4).sub((byte) 8)
                        .convertShape(VectorOperators.B2F, F, 0);
                long xl = b * 32 + s;
                long xh = xl + 16;
                p0 = hi.fma(xAt(m0, xh), lo.fma(xAt(m0, xl), p0));
                if (mr > 1) {
                    p1 = hi.fma(xAt(m0 + 1, xh), lo.fma(xAt(m0 + 1, xl), p1));
                }
                if (mr > 2) {
                    p2 = hi.fma(xAt(m0 + 2, xh), lo.fma(xAt(m0 + 2, xl), p2));
                }
                if (mr > 3) {
                    p3 = hi.fma(xAt(m0 + 3, xh), lo.fma(xAt(m0 + 3, xl), p3));
                }
            }
            a0 = p0.fma(dv, a0);
            a1 = p1.fma(dv, a1);
            a2 = p2.fma(dv, a2);
            a3 = p3.fma(dv, a3);
        }
        store(j, m0, mr, a0, a1, a2, a3);
    }

    private FloatVector xAt(int m, long i) {
        return FloatVector.fromMemorySegment(F, x, ((long) m * k + i) * 4, LE);
    }

    private void store(int j, int m0, int mr, FloatVector a0, FloatVector a1, FloatVector a2, FloatVector a3) {
        y.setAtIndex(LE_FLOAT, (long) m0 * n + j, VectorMath.sumLanes(a0));
        if (mr > 1) {
            y.setAtIndex(LE_FLOAT, (long) (m0 + 1) * n + j, VectorMath.sumLanes(a1));
        }
        if (mr > 2) {
            y.setAtIndex(LE_FLOAT, (long) (m0 + 2) * n + j, VectorMath.sumLanes(a2));
        }
        if (mr > 3) {
            y.setAtIndex(LE_FLOAT, (long) (m0 + 3) * n + j, VectorMath.sumLanes(a3));
        }
    }

    // ---------------------------------------------------------------- float rows: F32, and decoded rows

    /** {@code y[m, j] = x[m, :] . row} for every m, {@code row} k floats at byte {@code ro} of {@code seg}. */
    private void floatRows(MemorySegment seg, long ro, int j) {
        int bound = F.loopBound(k);
        for (int m = 0; m < rows; m++) {
            long xo = (long) m * k * 4;
            FloatVector acc = FloatVector.zero(F);
            for (int i = 0; i < bound; i += L) {
                FloatVector wv = FloatVector.fromMemorySegment(F, seg, ro + 4L * i, LE);
                acc = wv.fma(FloatVector.fromMemorySegment(F, x, xo + 4L * i, LE), acc);
            }
            float s = VectorMath.sumLanes(acc);
            for (int i = bound; i < k; i++) {
                s = Math.fma(seg.get(LE_FLOAT, ro + 4L * i), x.get(LE_FLOAT, xo + 4L * i), s);
            }
            y.setAtIndex(LE_FLOAT, (long) m * n + j, s);
        }
    }

    /**
     * F16 or BF16 row at {@code wo} widened into {@code row} as floats: the bits built in int lanes and stored,
     * which the float loads of {@link #floatRows} read back. BF16 is the high half of an f32. For F16,
     * {@code sign | (exp,mantissa) << 13} is the f32 whose value times 2^112 is the half's (exact for normals and
     * subnormals); infinities and NaN get an all-ones exponent instead. The 2^112 is applied here by a second pass.
     */
    private void widenHalfRow(long wo, MemorySegment row) {
        int bound = F.loopBound(k);
        boolean bf16 = format == WeightFormat.BF16;
        for (int i = 0; i < bound; i += L) {
            IntVector h = (IntVector) ShortVector.fromMemorySegment(S, w, wo + 2L * i, LE)
                    .convertShape(VectorOperators.S2I, I, 0);
            IntVector bits;
            if (bf16) {
                bits = h.lanewise(VectorOperators.LSHL, 16);
            } else {
                IntVector mag = h.and(0x7fff);
                bits = h.and(0x8000).lanewise(VectorOperators.LSHL, 16).or(mag.lanewise(VectorOperators.LSHL, 13))
                        .lanewise(VectorOperators.OR, 0x7f800000, mag.compare(VectorOperators.GE, 0x7c00));
            }
            bits.intoMemorySegment(row, 4L * i, LE);
        }
        for (int i = bound; i < k; i++) {
            short h = w.get(LE_SHORT, wo + 2L * i);
            row.set(LE_FLOAT, 4L * i, bf16 ? Float.intBitsToFloat(h << 16) : Float.float16ToFloat(h));
        }
        if (!bf16) {
            for (int i = 0; i < bound; i += L) {
                FloatVector.fromMemorySegment(F, row, 4L * i, LE).mul(0x1p112f).intoMemorySegment(row, 4L * i, LE);
            }
        }
    }
}
