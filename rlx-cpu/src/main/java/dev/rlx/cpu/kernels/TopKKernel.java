package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.ir.Elements;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import java.lang.foreign.MemorySegment;

/**
 * Top-k along an axis. Per line, every element gets a {@code long} sort key (larger is better), a size-k
 * heap keeps the best k seen with the worst at its root, and heapsort then orders them best first:
 * O(n log k) per line. Ties go to the smaller index: the scan runs in index order, a later element replaces
 * the root only when its key is strictly larger, and the heap breaks key ties by index. NaN ranks as the most
 * extreme, as in arg-max/arg-min, so top-1 agrees with them.
 *
 * <p>Values are copied as element bytes, so they are exact in every dtype; indices are I64. Scratch (one key
 * per line element and one heap slot per k) is taken per part at compile time; parts, contiguous runs of
 * lines, are the parallel units, so no two threads ever share a part's scratch.
 */
final class TopKKernel implements Kernel, RangeTask {
    private final MemorySegment x;
    private final MemorySegment values;
    private final MemorySegment indices;
    private final DType t;
    private final long es;
    private final AxisLines lines; // operand 0: x (n along the axis), 1: values and indices (k along it)
    private final int k;
    private final boolean largest;
    private final MemorySegment keys; // (parts, n) longs
    private final MemorySegment heap; // (parts, k) ints: indices into the line
    private final int parts;
    private final Parallel parallel;

    private TopKKernel(Buf x, Buf values, Buf indices, AxisLines lines, int k, boolean largest, int parts,
                       LowerContext ctx) {
        this.x = x.seg();
        this.values = values.seg();
        this.indices = indices.seg();
        this.t = x.dtype();
        this.es = t.byteSize();
        this.lines = lines;
        this.k = k;
        this.largest = largest;
        this.parts = parts;
        this.keys = ctx.scratch((long) parts * lines.length() * Long.BYTES);
        this.heap = ctx.scratch((long) parts * k * Integer.BYTES);
        this.parallel = ctx.parallel();
    }

    static Kernel of(Node n, LowerContext ctx) {
        Op.TopK op = (Op.TopK) n.op();
        Buf x = ctx.in(n, 0);
        Buf v = ctx.out(n, 0);
        Unsupported.requireReal(n, x.dtype());
        AxisLines lines = AxisLines.of(x.shape().dims(), op.axis(), x.shape().strides(), v.shape().strides());
        if (lines.count() == 0 || op.k() == 0) {
            return Kernels.NONE; // no output elements
        }
        long work = (long) lines.count() * lines.length();
        int parts = (int) Math.max(1, Math.min(Math.min(ctx.parallel().threads(), lines.count()), work / Grain.ELEMENTS));
        return new TopKKernel(x, v, ctx.out(n, 1), lines, op.k(), op.largest(), parts, ctx);
    }

    @Override
    public void run() {
        parallel.parallelFor(parts, 1, this);
    }

    @Override
    public void range(int from, int to) {
        long count = lines.count();
        for (int p = from; p < to; p++) {
            long keyBase = (long) p * lines.length();
            long heapBase = (long) p * k;
            for (int l = (int) (count * p / parts), end = (int) (count * (p + 1) / parts); l < end; l++) {
                line(l, keyBase, heapBase);
            }
        }
    }

    private void line(int l, long kb, long hb) {
        int n = lines.length();
        long xs = lines.start(0, l);
        long step = lines.step(0);
        for (int j = 0; j < n; j++) {
            keys.setAtIndex(JAVA_LONG, kb + j, key(xs + j * step));
        }
        for (int j = 0; j < k; j++) {
            heap.setAtIndex(JAVA_INT, hb + j, j);
        }
        for (int i = k / 2 - 1; i >= 0; i--) {
            siftDown(kb, hb, i, k);
        }
        for (int j = k; j < n; j++) {
            if (keys.getAtIndex(JAVA_LONG, kb + j) > keys.getAtIndex(JAVA_LONG, kb + heap.getAtIndex(JAVA_INT, hb))) {
                heap.setAtIndex(JAVA_INT, hb, j);
                siftDown(kb, hb, 0, k);
            }
        }
        // heapsort: the worst left moves to the end each round, so the best ends up first
        for (int end = k - 1; end > 0; end--) {
            swap(hb, 0, end);
            siftDown(kb, hb, 0, end);
        }
        long vs = lines.start(1, l);
        long vstep = lines.step(1);
        for (int i = 0; i < k; i++) {
            int j = heap.getAtIndex(JAVA_INT, hb + i);
            long at = vs + i * vstep;
            MemorySegment.copy(x, (xs + j * step) * es, values, at * es, es);
            indices.setAtIndex(JAVA_LONG, at, j);
        }
    }

    /**
     * A key whose signed order is the wanted order: integers as they are, floats by their IEEE bits with the
     * magnitude bits of negatives flipped (-0 folded into +0, NaN to the top); {@code ~} reverses the order
     * for smallest-first without overflowing.
     */
    private long key(long i) {
        long s;
        if (Elements.integral(t)) {
            s = Elements.getLong(x, i, t);
        } else {
            double v = Elements.getDouble(x, i, t);
            if (Double.isNaN(v)) {
                s = largest ? Long.MAX_VALUE : Long.MIN_VALUE;
            } else {
                long b = Double.doubleToRawLongBits(v + 0.0);
                s = b ^ ((b >> 63) & Long.MAX_VALUE);
            }
        }
        return largest ? s : ~s;
    }

    /** Whether line element {@code a} ranks below {@code b}: a smaller key, or an equal key and a larger index. */
    private boolean worse(long kb, int a, int b) {
        long ka = keys.getAtIndex(JAVA_LONG, kb + a);
        long kbv = keys.getAtIndex(JAVA_LONG, kb + b);
        return ka < kbv || (ka == kbv && a > b);
    }

    /** Restores the heap below slot {@code i} of a heap of {@code size}, the worst element rising to the root. */
    private void siftDown(long kb, long hb, int i, int size) {
        while (true) {
            int c = 2 * i + 1;
            if (c >= size) {
                return;
            }
            if (c + 1 < size && worse(kb, heap.getAtIndex(JAVA_INT, hb + c + 1), heap.getAtIndex(JAVA_INT, hb + c))) {
                c++;
            }
            if (!worse(kb, heap.getAtIndex(JAVA_INT, hb + c), heap.getAtIndex(JAVA_INT, hb + i))) {
                return;
            }
            swap(hb, i, c);
            i = c;
        }
    }

    private void swap(long hb, int a, int b) {
        int va = heap.getAtIndex(JAVA_INT, hb + a);
        heap.setAtIndex(JAVA_INT, hb + a, heap.getAtIndex(JAVA_INT, hb + b));
        heap.setAtIndex(JAVA_INT, hb + b, va);
    }
}
