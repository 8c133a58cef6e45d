package dev.rlx.cpu.kernels;

import dev.rlx.ir.ReduceKind;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * f32 SUM, MEAN, MAX and MIN that keep the last axis (e.g. a reduction over the batch axis): the outputs of
 * one output row of {@code k} read adjacent input elements, so one vector covers {@link VectorMath#F}-many
 * outputs and walks down the reduced elements, reading each input cache line once per tile.
 *
 * <p>Sums accumulate in a float vector per block of {@link #BLOCK} reduced elements, and the block
 * sums in a second float vector, so rounding grows with {@code BLOCK + n / BLOCK} additions rather than
 * with {@code n}. MIN is {@code -max(-x)}. Every tile loads and stores through its mask (all set but in the last tile of a row): a
 * masked access costs the same as a plain one on AVX-512 and keeps one loop per operation. Units are (output row, tile)
 * pairs.
 */
final class ColumnReduceF32 implements Kernel, RangeTask {
    /** Reduced elements one lane adds in float before its sum moves on (each lane adds one element per step). */
    private static final int BLOCK = 1024;

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final ReduceKind kind;
    private final MemorySegment x;
    private final MemorySegment y;
    private final OffsetMap outs; // output position -> input offset of its first reduced element
    private final Walk over;      // reduced elements: over.rows() runs of over.inner(), stride over.innerStride(0)
    private final int k;          // outputs per output row (the last dim), contiguous in x and y
    private final int tiles;      // vectors per output row
    private final int units;
    private final float count;
    private final Parallel parallel;

    /** Whether {@code kind} over f32 with a kept last dim of {@code k} takes this kernel. */
    static boolean applies(ReduceKind kind, int k) {
        return kind != ReduceKind.PROD && k >= F.length();
    }

    ColumnReduceF32(ReduceKind kind, Buf x, Buf y, OffsetMap outs, Walk over, int k, Parallel parallel) {
        this.kind = kind;
        this.x = x.seg();
        this.y = y.seg();
        this.outs = outs;
        this.over = over;
        this.k = k;
        this.tiles = (k + F.length() - 1) / F.length();
        this.units = outs.size() / k * tiles;
        this.count = over.elements();
        this.parallel = parallel;
    }

    @Override
    public void run() {
        parallel.parallelFor(units, Grain.of(over.elements() * F.length()), this);
    }

    @Override
    public void range(int from, int to) {
        for (int u = from; u < to; u++) {
            int row = u / tiles;
            int col = (u % tiles) * F.length();
            long in = outs.offset(0, row * k) + col;
            long out = (long) row * k + col;
            // One loop per operation: a vector carried round a loop must not pass a choice between
            // operations, or the JIT stops eliminating its boxes once both have run. Vectors and masks
            // stay inside the tile methods for the same reason (a call boundary would box them).
            switch (kind) {
                case SUM, MEAN -> sumTile(in, out, col);
                case MAX -> maxTile(in, out, col, 1f);
                case MIN -> maxTile(in, out, col, -1f);
                case PROD -> throw new IllegalStateException("prod has no column loop");
            }
        }
    }

    /** Sums down the reduced elements: float lanes per block, block sums in a second float vector. */
    private void sumTile(long in, long out, int col) {
        VectorMask<Float> mask = F.indexInRange(col, k);
        int inner = over.inner();
        long step = over.innerStride(0);
        FloatVector total = FloatVector.zero(F);
        FloatVector block = FloatVector.zero(F);
        int inBlock = 0;
        for (int r = 0; r < over.rows(); r++) {
            long off = in + over.rowOffset(0, r);
            for (int j = 0; j < inner; j++) {
                block = block.add(FloatVector.fromMemorySegment(F, x, (off + j * step) * 4, LE, mask));
                if (++inBlock == BLOCK) {
                    total = total.add(block);
                    block = FloatVector.zero(F);
                    inBlock = 0;
                }
            }
        }
        total = total.add(block);
        // MEAN: 0/0 = NaN over zero elements, as it should be
        float divisor = kind == ReduceKind.MEAN ? count : 1f; // a scalar choice: no vector phi to box
        total.div(divisor).intoMemorySegment(y, out * 4, LE, mask);
    }

    /** {@code sign * max(sign * x)} down the reduced elements: the max, or with sign -1 the min; NaN propagates. */
    private void maxTile(long in, long out, int col, float sign) {
        VectorMask<Float> mask = F.indexInRange(col, k);
        int inner = over.inner();
        long step = over.innerStride(0);
        FloatVector acc = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (int r = 0; r < over.rows(); r++) {
            long off = in + over.rowOffset(0, r);
            for (int j = 0; j < inner; j++) {
                acc = acc.max(FloatVector.fromMemorySegment(F, x, (off + j * step) * 4, LE, mask).mul(sign));
            }
        }
        acc.mul(sign).intoMemorySegment(y, out * 4, LE, mask);
    }
}
