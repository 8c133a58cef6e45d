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
 * blocks. Parallel over weight rows j; each row is read from memory once per call (later rows of x re-read it from
 * L1) and applied to every row of x, so a decode step over a batch of sequences pays for the weights once.
 *
 * <p>Q8_0 and Q4_0 blocks are decoded in registers (bytes widened to float lanes; the block scale applied to the
 * block's partial sums), rows of x in pairs sharing each decoded vector; F16 and BF16 rows are widened by integer operations on their bits (through memory, no reinterpretation); F32
 * rows are read in place; the other formats (Q4_1, Q5_0, Q5_1 and the K-quants) are decoded by their reference
 * decoder. Every output is one fixed sequence of operations (four accumulators added in a fixed order, lanes in
 * lane order), whatever the thread count or the number of rows of x, so runs give the same bits.
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
        long scratchBytes = 4L * (k + L);
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
        MemorySegment row = rowScratch.get();
        for (int j = from; j < to; j++) {
            long wo = j * rowBytes;
            switch (format) {
                case F32 -> {
                    floatRows(w, wo, j);
                    continue;
                }
                case Q8_0, Q4_0 -> {
                    int m = 0;
                    for (; m + 1 < rows; m += 2) {
                        blockPair(wo, j, m);
                    }
                    if (m < rows) {
                        blockOne(wo, j, m);
                    }
                    continue;
                }
                case F16, BF16 -> widenHalfRow(wo, row);
                default -> {
                    float[] decoded = rowArray.get();
                    format.decode(w, wo, decoded, 0, k);
                    MemorySegment.copy(decoded, 0, row, ValueLayout.JAVA_FLOAT, 0, k);
                }
            }
            floatRows(row, 0, j);
        }
    }

    // Q8_0 {f16 d; int8 q[32]} and Q4_0 {f16 d; u8 qs[16]} (w_i = d (nibble_i - 8), low nibbles first) are decoded
    // in registers: per block, p = sum of the codes times x (an FMA chain over the block's vectors), then
    // acc = p d + acc. A row of x gets this same sequence alone (blockOne) or paired with the next (blockPair,
    // which shares each decoded vector), so outputs do not depend on the batch.

    /** The codes of vector {@code s} (elements {@code [s L, s L + L)}) of the block at {@code bo}, as floats. */
    private FloatVector codes(long bo, int s) {
        if (format == WeightFormat.Q8_0) {
            return (FloatVector) ByteVector.fromMemorySegment(B, w, bo + 2 + (long) s * L, LE)
                    .convertShape(VectorOperators.B2F, F, 0);
        }
        int half = 16 / L; // vectors per nibble half
        int at = s % half;
        // nibbles split in int lanes: byte-lane shifts are not native on x86
        IntVector c = (IntVector) ByteVector.fromMemorySegment(B, w, bo + 2 + (long) at * L, LE)
                .convertShape(VectorOperators.B2I, I, 0);
        IntVector q = s < half ? c.and(0x0F) : c.lanewise(VectorOperators.LSHR, 4).and(0x0F);
        return (FloatVector) q.sub(8).convert(VectorOperators.I2F, 0);
    }

    private void blockOne(long wo, int j, int m) {
        long xo = (long) m * k * 4;
        int blockBytes = format.blockBytes();
        int perBlock = 32 / L;
        FloatVector acc = FloatVector.zero(F);
        for (int b = 0; b < k / 32; b++) {
            long bo = wo + (long) b * blockBytes;
            FloatVector p = FloatVector.zero(F);
            for (int s = 0; s < perBlock; s++) {
                p = codes(bo, s).fma(xAt(xo, b * 32 + s * L), p);
            }
            acc = p.fma(FloatVector.broadcast(F, Float.float16ToFloat(w.get(LE_SHORT, bo))), acc);
        }
        y.setAtIndex(LE_FLOAT, (long) m * n + j, VectorMath.sumLanes(acc));
    }

    private void blockPair(long wo, int j, int m) {
        long xa = (long) m * k * 4;
        long xb = xa + (long) k * 4;
        int blockBytes = format.blockBytes();
        int perBlock = 32 / L;
        FloatVector accA = FloatVector.zero(F);
        FloatVector accB = accA;
        for (int b = 0; b < k / 32; b++) {
            long bo = wo + (long) b * blockBytes;
            FloatVector pa = FloatVector.zero(F);
            FloatVector pb = pa;
            for (int s = 0; s < perBlock; s++) {
                FloatVector q = codes(bo, s);
                pa = q.fma(xAt(xa, b * 32 + s * L), pa);
                pb = q.fma(xAt(xb, b * 32 + s * L), pb);
            }
            FloatVector d = FloatVector.broadcast(F, Float.float16ToFloat(w.get(LE_SHORT, bo)));
            accA = pa.fma(d, accA);
            accB = pb.fma(d, accB);
        }
        y.setAtIndex(LE_FLOAT, (long) m * n + j, VectorMath.sumLanes(accA));
        y.setAtIndex(LE_FLOAT, (long) (m + 1) * n + j, VectorMath.sumLanes(accB));
    }

    // ---------------------------------------------------------------- float rows

    /**
     * {@code y[m, j] = x[m, :] . w} for every m, {@code w} k floats at byte {@code wo} of {@code seg}. Rows of x go
     * in pairs that share each load of w; each row keeps two accumulators (even and odd vectors, for FMA latency)
     * added at the end, lanes in lane order: the same operations for a row whether it is paired or not. (Four
     * accumulators per row pushed the loop past C2's inlining node budget, and it then boxed vectors.)
     */
    private void floatRows(MemorySegment seg, long wo, int j) {
        int even = k / (2 * L) * (2 * L);
        boolean odd = even < F.loopBound(k);
        int m = 0;
        for (; m + 1 < rows; m += 2) {
            long xa = (long) m * k * 4;
            long xb = xa + (long) k * 4;
            FloatVector a0 = FloatVector.zero(F);
            FloatVector a1 = a0;
            FloatVector b0 = a0;
            FloatVector b1 = a0;
            for (int i = 0; i < even; i += 2 * L) {
                FloatVector w0 = wAt(seg, wo, i);
                FloatVector w1 = wAt(seg, wo, i + L);
                a0 = w0.fma(xAt(xa, i), a0);
                a1 = w1.fma(xAt(xa, i + L), a1);
                b0 = w0.fma(xAt(xb, i), b0);
                b1 = w1.fma(xAt(xb, i + L), b1);
            }
            if (odd) {
                FloatVector w0 = wAt(seg, wo, even);
                a0 = w0.fma(xAt(xa, even), a0);
                b0 = w0.fma(xAt(xb, even), b0);
            }
            finish(seg, wo, xa, m, j, a0.add(a1));
            finish(seg, wo, xb, m + 1, j, b0.add(b1));
        }
        for (; m < rows; m++) {
            long xa = (long) m * k * 4;
            FloatVector a0 = FloatVector.zero(F);
            FloatVector a1 = a0;
            for (int i = 0; i < even; i += 2 * L) {
                a0 = wAt(seg, wo, i).fma(xAt(xa, i), a0);
                a1 = wAt(seg, wo, i + L).fma(xAt(xa, i + L), a1);
            }
            if (odd) {
                a0 = wAt(seg, wo, even).fma(xAt(xa, even), a0);
            }
            finish(seg, wo, xa, m, j, a0.add(a1));
        }
    }

    /** The lane sum of {@code acc} (lane order), plus the scalar tail of the row, into {@code y[m, j]}. */
    private void finish(MemorySegment seg, long wo, long xo, int m, int j, FloatVector acc) {
        float sum = VectorMath.sumLanes(acc);
        for (int i = F.loopBound(k); i < k; i++) {
            sum = Math.fma(seg.get(LE_FLOAT, wo + 4L * i), x.get(LE_FLOAT, xo + 4L * i), sum);
        }
        y.setAtIndex(LE_FLOAT, (long) m * n + j, sum);
    }

    private static FloatVector wAt(MemorySegment seg, long wo, int i) {
        return FloatVector.fromMemorySegment(F, seg, wo + 4L * i, LE);
    }

    private FloatVector xAt(long xo, int i) {
        return FloatVector.fromMemorySegment(F, x, xo + 4L * i, LE);
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
