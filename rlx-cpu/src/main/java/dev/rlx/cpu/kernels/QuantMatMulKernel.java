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
 * rows are read in place; Q4_K, Q5_K and Q6_K rows are decoded with vectors ({@link KQuantRows}) into a float
 * row; the other formats (Q4_1, Q5_0, Q5_1, Q8_K) are decoded by their reference decoder. Every output is one fixed
 * sequence of operations (accumulators added in a fixed order, lanes in lane order), whatever the thread count or
 * the number of rows of x, so runs give the same bits.
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
    /**
     * Four vectors of lane sums per thread. Every accumulator leaves a kernel method through this memory and is
     * added lane by lane there: a vector handed to a method that C2 does not inline is boxed, an allocation per
     * output, and whether C2 inlines a helper depends on the call-site counts that tiered profiling happened
     * to record (a {@code sumLanes} call in the Q8_0 kernel was boxed on an AMD EPYC, "low call site frequency").
     */
    private final ThreadLocal<MemorySegment> laneScratch;
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
        long rowBytesScratch = 4L * Math.max(k, L); // a decoded row
        this.rowScratch = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(rowBytesScratch, 64));
        this.laneScratch = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(4L * 4 * L, 64));
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
        // one loop per format, chosen once per range: a format test inside the block loop made C2's code for the
        // decode path several times slower from DRAM than the same arithmetic on its own
        MemorySegment lanes = laneScratch.get();
        switch (format) {
            case F32 -> {
                for (int j = from; j < to; j++) {
                    floatRows(w, j * rowBytes, j, lanes);
                }
            }
            case Q8_0 -> q8Rows(from, to, lanes);
            case Q4_0 -> q4Rows(from, to, lanes);
            case F16, BF16 -> {
                MemorySegment row = rowScratch.get();
                for (int j = from; j < to; j++) {
                    widenHalfRow(j * rowBytes, row);
                    floatRows(row, 0, j, lanes);
                }
            }
            case Q4_K, Q5_K -> {
                MemorySegment row = rowScratch.get();
                boolean five = format == WeightFormat.Q5_K;
                for (int j = from; j < to; j++) {
                    KQuantRows.q45K(w, j * rowBytes, row, k, five);
                    floatRows(row, 0, j, lanes);
                }
            }
            case Q6_K -> {
                MemorySegment row = rowScratch.get();
                for (int j = from; j < to; j++) {
                    KQuantRows.q6K(w, j * rowBytes, row, k);
                    floatRows(row, 0, j, lanes);
                }
            }
            default -> {
                MemorySegment row = rowScratch.get();
                float[] decoded = rowArray.get();
                for (int j = from; j < to; j++) {
                    format.decode(w, j * rowBytes, decoded, 0, k);
                    MemorySegment.copy(decoded, 0, row, ValueLayout.JAVA_FLOAT, 0, k);
                    floatRows(row, 0, j, lanes);
                }
            }
        }
    }

    // Q8_0 {f16 d; int8 q[32]} and Q4_0 {f16 d; u8 qs[16]} (w_i = d (nibble_i - 8), low nibbles first) are decoded
    // in registers: per block, p = the codes times x (a multiply, then an FMA chain over the block's vectors), then
    // acc = p d + acc. A row of x gets this same sequence alone (...One) or paired with the next (...Pair, which
    // shares each decoded vector), so outputs do not depend on the batch.

    private static final int PER_BLOCK = 32 / L;   // vectors per 32-element block
    private static final int Q4_HALF = 16 / L;     // vectors per nibble half of a Q4_0 block

    private void q8Rows(int from, int to, MemorySegment lanes) {
        for (int j = from; j < to; j++) {
            long wo = j * rowBytes;
            int m = 0;
            for (; m + 3 < rows; m += 4) {
                q8Quad(wo, j, m, lanes);
            }
            for (; m + 1 < rows; m += 2) {
                q8Pair(wo, j, m, lanes);
            }
            if (m < rows) {
                q8One(wo, j, m, lanes);
            }
        }
    }

    private static FloatVector q8Codes(MemorySegment w, long at) {
        return (FloatVector) ByteVector.fromMemorySegment(B, w, at, LE).convertShape(VectorOperators.B2F, F, 0);
    }

    private static FloatVector scale(MemorySegment w, long bo) {
        return FloatVector.broadcast(F, Float.float16ToFloat(w.get(LE_SHORT, bo)));
    }

    /** {@code y[m, j] = x[m, :] . w[j, :]} for a Q8_0 row. */
    // Each row keeps two accumulators, for even and odd blocks, swapped after every block (one serial FMA chain
    // kept the loads from running ahead); their sum at the end does not depend on which one holds the last block.

    private void q8One(long wo, int j, int m, MemorySegment lanes) {
        MemorySegment w = this.w;
        MemorySegment x = this.x;
        long xo = (long) m * k * 4;
        int blocks = k / 32;
        FloatVector acc = FloatVector.zero(F);
        FloatVector other = acc;
        for (int b = 0; b < blocks; b++) {
            long bo = wo + 34L * b;
            long xb = xo + 128L * b;
            FloatVector p = q8Codes(w, bo + 2).mul(xAt(x, xb));
            for (int s = 1; s < PER_BLOCK; s++) {
                p = q8Codes(w, bo + 2 + (long) s * L).fma(xAt(x, xb + 4L * s * L), p);
            }
            FloatVector t = p.fma(scale(w, bo), acc);
            acc = other;
            other = t;
        }
        acc.add(other).intoMemorySegment(lanes, 0, LE);
        storeLaneSums(lanes, j, m, 1);
    }

    private void q8Pair(long wo, int j, int m, MemorySegment lanes) {
        MemorySegment w = this.w;
        MemorySegment x = this.x;
        long xa = (long) m * k * 4;
        long xc = xa + (long) k * 4;
        int blocks = k / 32;
        FloatVector accA = FloatVector.zero(F);
        FloatVector otherA = accA;
        FloatVector accB = accA;
        FloatVector otherB = accA;
        for (int b = 0; b < blocks; b++) {
            long bo = wo + 34L * b;
            long off = 128L * b;
            FloatVector q = q8Codes(w, bo + 2);
            FloatVector pa = q.mul(xAt(x, xa + off));
            FloatVector pb = q.mul(xAt(x, xc + off));
            for (int s = 1; s < PER_BLOCK; s++) {
                q = q8Codes(w, bo + 2 + (long) s * L);
                pa = q.fma(xAt(x, xa + off + 4L * s * L), pa);
                pb = q.fma(xAt(x, xc + off + 4L * s * L), pb);
            }
            FloatVector d = scale(w, bo);
            FloatVector ta = pa.fma(d, accA);
            FloatVector tb = pb.fma(d, accB);
            accA = otherA;
            otherA = ta;
            accB = otherB;
            otherB = tb;
        }
        accA.add(otherA).intoMemorySegment(lanes, 0, LE);
        accB.add(otherB).intoMemorySegment(lanes, 4L * L, LE);
        storeLaneSums(lanes, j, m, 2);
    }

    /**
     * Four rows of x sharing each decoded vector (batched decode, prefill): per row, q8One's operations. The four
     * sums leave through {@code lanes} and are added lane by lane in lane order, as {@link VectorMath#sumLanes}
     * adds them.
     */
    private void q8Quad(long wo, int j, int m, MemorySegment lanes) {
        MemorySegment w = this.w;
        MemorySegment x = this.x;
        long x0 = (long) m * k * 4;
        long rs = (long) k * 4;
        int blocks = k / 32;
        FloatVector z = FloatVector.zero(F);
        FloatVector a0 = z, o0 = z, a1 = z, o1 = z, a2 = z, o2 = z, a3 = z, o3 = z;
        for (int b = 0; b < blocks; b++) {
            long bo = wo + 34L * b;
            long off = x0 + 128L * b;
            FloatVector q = q8Codes(w, bo + 2);
            FloatVector p0 = q.mul(xAt(x, off));
            FloatVector p1 = q.mul(xAt(x, off + rs));
            FloatVector p2 = q.mul(xAt(x, off + 2 * rs));
            FloatVector p3 = q.mul(xAt(x, off + 3 * rs));
            for (int s = 1; s < PER_BLOCK; s++) {
                q = q8Codes(w, bo + 2 + (long) s * L);
                long at = off + 4L * s * L;
                p0 = q.fma(xAt(x, at), p0);
                p1 = q.fma(xAt(x, at + rs), p1);
                p2 = q.fma(xAt(x, at + 2 * rs), p2);
                p3 = q.fma(xAt(x, at + 3 * rs), p3);
            }
            FloatVector d = scale(w, bo);
            FloatVector t0 = p0.fma(d, a0);
            FloatVector t1 = p1.fma(d, a1);
            FloatVector t2 = p2.fma(d, a2);
            FloatVector t3 = p3.fma(d, a3);
            a0 = o0;
            o0 = t0;
            a1 = o1;
            o1 = t1;
            a2 = o2;
            o2 = t2;
            a3 = o3;
            o3 = t3;
        }
        a0.add(o0).intoMemorySegment(lanes, 0, LE);
        a1.add(o1).intoMemorySegment(lanes, 4L * L, LE);
        a2.add(o2).intoMemorySegment(lanes, 8L * L, LE);
        a3.add(o3).intoMemorySegment(lanes, 12L * L, LE);
        storeLaneSums(lanes, j, m, 4);
    }

    private void q4Rows(int from, int to, MemorySegment lanes) {
        for (int j = from; j < to; j++) {
            long wo = j * rowBytes;
            int m = 0;
            // with vectors narrower than a nibble half (AVX2) the paired loop outgrows C2's inlining budget and
            // boxes its vectors; rows then go one at a time (the same operations, so the same bits)
            for (; Q4_HALF == 1 && m + 3 < rows; m += 4) {
                q4Quad(wo, j, m, lanes);
            }
            for (; Q4_HALF == 1 && m + 1 < rows; m += 2) {
                q4Pair(wo, j, m, lanes);
            }
            for (; m < rows; m++) {
                q4One(wo, j, m, lanes);
            }
        }
    }

    /**
     * Four rows of x sharing each decoded Q4_0 vector, for vectors of 16 lanes (one per nibble half): per row,
     * q4One's operations; the sums leave through {@code lanes} as in {@link #q8Quad}.
     */
    private void q4Quad(long wo, int j, int m, MemorySegment lanes) {
        MemorySegment w = this.w;
        MemorySegment x = this.x;
        long x0 = (long) m * k * 4;
        long rs = (long) k * 4;
        int blocks = k / 32;
        FloatVector z = FloatVector.zero(F);
        FloatVector a0 = z, o0 = z, a1 = z, o1 = z, a2 = z, o2 = z, a3 = z, o3 = z;
        for (int b = 0; b < blocks; b++) {
            long bo = wo + 18L * b;
            long off = x0 + 128L * b;
            IntVector c = q4Bytes(w, bo + 2);
            FloatVector lo = low(c);
            FloatVector up = high(c);
            FloatVector d = scale(w, bo);
            FloatVector t0 = lo.mul(xAt(x, off)).add(up.mul(xAt(x, off + 64))).fma(d, a0);
            FloatVector t1 = lo.mul(xAt(x, off + rs)).add(up.mul(xAt(x, off + rs + 64))).fma(d, a1);
            FloatVector t2 = lo.mul(xAt(x, off + 2 * rs)).add(up.mul(xAt(x, off + 2 * rs + 64))).fma(d, a2);
            FloatVector t3 = lo.mul(xAt(x, off + 3 * rs)).add(up.mul(xAt(x, off + 3 * rs + 64))).fma(d, a3);
            a0 = o0;
            o0 = t0;
            a1 = o1;
            o1 = t1;
            a2 = o2;
            o2 = t2;
            a3 = o3;
            o3 = t3;
        }
        a0.add(o0).intoMemorySegment(lanes, 0, LE);
        a1.add(o1).intoMemorySegment(lanes, 4L * L, LE);
        a2.add(o2).intoMemorySegment(lanes, 8L * L, LE);
        a3.add(o3).intoMemorySegment(lanes, 12L * L, LE);
        storeLaneSums(lanes, j, m, 4);
    }

    /** {@code y[m + r, j]} = the lanes of vector r in {@code lanes} added in lane order, r < count. */
    private void storeLaneSums(MemorySegment lanes, int j, int m, int count) {
        for (int r = 0; r < count; r++) {
            float sum = lanes.get(LE_FLOAT, 4L * L * r);
            for (int i = 1; i < L; i++) {
                sum += lanes.get(LE_FLOAT, 4L * (L * r + i));
            }
            y.setAtIndex(LE_FLOAT, (long) (m + r) * n + j, sum);
        }
    }

    /** Bytes {@code [at, at + L)} of a Q4_0 block in int lanes (byte-lane shifts are not native on x86). */
    private static IntVector q4Bytes(MemorySegment w, long at) {
        return (IntVector) ByteVector.fromMemorySegment(B, w, at, LE).convertShape(VectorOperators.B2I, I, 0);
    }

    private static FloatVector low(IntVector c) {
        return (FloatVector) c.and(0x0F).sub(8).convertShape(VectorOperators.I2F, F, 0);
    }

    private static FloatVector high(IntVector c) {
        return (FloatVector) c.lanewise(VectorOperators.LSHR, 4).and(0x0F).sub(8).convertShape(VectorOperators.I2F, F, 0);
    }

    /**
     * {@code y[m, j] = x[m, :] . w[j, :]} for a Q4_0 row: vector h of the low nibbles is
     * elements {@code [h L, h L + L)}, of the high nibbles {@code [16 + h L, ...)}; the block's products are
     * accumulated in element order.
     */
    private void q4One(long wo, int j, int m, MemorySegment lanes) {
        long xo = (long) m * k * 4;
        MemorySegment w = this.w;
        MemorySegment x = this.x;
        int blocks = k / 32;
        FloatVector acc = FloatVector.zero(F);
        FloatVector other = acc;
        for (int b = 0; b < blocks; b++) {
            long bo = wo + 18L * b;
            long xb = xo + 128L * b;
            IntVector c = q4Bytes(w, bo + 2);
            FloatVector p = low(c).mul(xAt(x, xb));
            FloatVector hi = high(c).mul(xAt(x, xb + 64));
            for (int h = 1; h < Q4_HALF; h++) {
                c = q4Bytes(w, bo + 2 + (long) h * L);
                p = low(c).fma(xAt(x, xb + 4L * h * L), p);
                hi = high(c).fma(xAt(x, xb + 64 + 4L * h * L), hi);
            }
            FloatVector t = p.add(hi).fma(scale(w, bo), acc);
            acc = other;
            other = t;
        }
        acc.add(other).intoMemorySegment(lanes, 0, LE);
        storeLaneSums(lanes, j, m, 1);
    }

    private void q4Pair(long wo, int j, int m, MemorySegment lanes) {
        MemorySegment w = this.w;
        MemorySegment x = this.x;
        long xa = (long) m * k * 4;
        long xc = xa + (long) k * 4;
        int blocks = k / 32;
        FloatVector accA = FloatVector.zero(F);
        FloatVector otherA = accA;
        FloatVector accB = accA;
        FloatVector otherB = accA;
        for (int b = 0; b < blocks; b++) {
            long bo = wo + 18L * b;
            long off = 128L * b;
            IntVector c = q4Bytes(w, bo + 2);
            FloatVector lo = low(c);
            FloatVector up = high(c);
            FloatVector pa = lo.mul(xAt(x, xa + off));
            FloatVector pb = lo.mul(xAt(x, xc + off));
            FloatVector ha = up.mul(xAt(x, xa + off + 64));
            FloatVector hb = up.mul(xAt(x, xc + off + 64));
            for (int h = 1; h < Q4_HALF; h++) {
                c = q4Bytes(w, bo + 2 + (long) h * L);
                lo = low(c);
                up = high(c);
                pa = lo.fma(xAt(x, xa + off + 4L * h * L), pa);
                pb = lo.fma(xAt(x, xc + off + 4L * h * L), pb);
                ha = up.fma(xAt(x, xa + off + 64 + 4L * h * L), ha);
                hb = up.fma(xAt(x, xc + off + 64 + 4L * h * L), hb);
            }
            FloatVector d = scale(w, bo);
            FloatVector ta = pa.add(ha).fma(d, accA);
            FloatVector tb = pb.add(hb).fma(d, accB);
            accA = otherA;
            otherA = ta;
            accB = otherB;
            otherB = tb;
        }
        accA.add(otherA).intoMemorySegment(lanes, 0, LE);
        accB.add(otherB).intoMemorySegment(lanes, 4L * L, LE);
        storeLaneSums(lanes, j, m, 2);
    }

    // ---------------------------------------------------------------- float rows

    /**
     * {@code y[m, j] = x[m, :] . w} for every m, {@code w} k floats at byte {@code wo} of {@code seg}. Rows of x go
     * in pairs that share each load of w; each row keeps two accumulators (even and odd vectors, for FMA latency)
     * added at the end, lanes in lane order: the same operations for a row whether it is paired or not. (Four
     * accumulators per row pushed the loop past C2's inlining node budget, and it then boxed vectors.)
     */
    private void floatRows(MemorySegment seg, long wo, int j, MemorySegment lanes) {
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
            a0.add(a1).intoMemorySegment(lanes, 0, LE);
            b0.add(b1).intoMemorySegment(lanes, 4L * L, LE);
            storeLaneSums(lanes, j, m, 2);
            finishTail(seg, wo, xa, m, j);
            finishTail(seg, wo, xb, m + 1, j);
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
            a0.add(a1).intoMemorySegment(lanes, 0, LE);
            storeLaneSums(lanes, j, m, 1);
            finishTail(seg, wo, xa, m, j);
        }
    }

    /** Adds the scalar tail of the row (past the last whole vector) to the lane sum already in {@code y[m, j]}. */
    private void finishTail(MemorySegment seg, long wo, long xo, int m, int j) {
        int tail = F.loopBound(k);
        if (tail == k) {
            return;
        }
        long at = (long) m * n + j;
        float sum = y.getAtIndex(LE_FLOAT, at);
        for (int i = tail; i < k; i++) {
            sum = Math.fma(seg.get(LE_FLOAT, wo + 4L * i), x.get(LE_FLOAT, xo + 4L * i), sum);
        }
        y.setAtIndex(LE_FLOAT, at, sum);
    }

    private static FloatVector wAt(MemorySegment seg, long wo, int i) {
        return FloatVector.fromMemorySegment(F, seg, wo + 4L * i, LE);
    }

    private FloatVector xAt(long xo, int i) {
        return FloatVector.fromMemorySegment(F, x, xo + 4L * i, LE);
    }

    private static FloatVector xAt(MemorySegment x, long at) {
        return FloatVector.fromMemorySegment(F, x, at, LE);
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
