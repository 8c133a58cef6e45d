package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * f32 convolution ({@link Op.Conv}) as im2col + the SGEMM: for each image, group and chunk of output
 * positions, the input values every output position reads are laid out as a {@code [K, P]} matrix
 * ({@code K = Cin/groups * taps} rows, {@code P} output positions of the chunk), and
 * {@code y[oc, P] = W[oc, K] . col} with the weight read in place (its {@code [Cout, Cin/g, k...]} layout is
 * already row-major {@code [Cout, K]}) and the column matrix too (not packed again). Chunks are whole
 * micro-panels sized to keep the column matrix in L2 and to split evenly over the threads; the bias is added
 * to each tile of the output as soon as it is final. {@link Im2colPlan} fills the column matrix with runs of
 * input ({@link TapMap}), so padding costs only the zero fill at the edges.
 *
 * <p>Taken when the product is wide enough for the micro-kernel to pay ({@link #applies}); depthwise and
 * small convolutions stay on {@link ConvKernel}'s direct loop.
 */
final class ConvGemmF32 implements Kernel, RangeTask {
    /**
     * Floats of column matrix per chunk, at most (unless K is so deep that one micro-panel needs more): it
     * stays in L2 between im2col and the GEMM. At K = 576 (3x3, 64 channels) 192K floats took 1.51-1.58 ms
     * per 56x56 conv, 256K 1.53-1.63 and 384K 1.52-1.62 (one thread, alternated in one process).
     */
    static final int CHUNK_FLOATS = 192 * 1024;

    private final MemorySegment x;
    private final MemorySegment y;
    private final MemorySegment bias; // null when there is none
    private final TapMap dMap;
    private final TapMap hMap;
    private final TapMap wMap;
    private final int groups;
    private final int cout;
    private final int coutPerGroup;
    private final int cinPerGroup;
    private final int k;          // rows of the column matrix: Cin/g * taps
    private final int positions;  // outD * outH * outW
    private final int chunkCols;  // output positions per chunk: the column matrix's row length
    private final int chunks;     // per (image, group)
    private final int units;      // images * groups * chunks
    private final int parts;
    private final WorkCursor cursor = new WorkCursor(); // units, taken by the parts as they finish
    private final long xChannelStride;
    private final Sgemm.Mat[] weights;   // per group: [Cout/g, K], in place
    private final Sgemm.Mat[] columns;   // per part: its column matrix [K, chunkCols]
    private final Im2colPlan[] plans;    // per part: how its current chunk's column matrix is filled
    private final Sgemm.Workspace[] workspaces;
    private final BiasHook[] hooks;      // per part; null without a bias
    // Few output positions (an STFT as a conv: 257 channels, 8 frames): a micro-tile is NR positions wide, so
    // y = W . col would compute mostly padding. Then y^T [P, Cout/g] = col^T . W^T goes to a scratch instead,
    // one tile of MR positions by NR channels at a time, and is written out transposed with the bias.
    private final boolean byPositions;
    private final Sgemm.Mat[] weightsT;  // per group, when byPositions: W^T [K, Cout/g], in place
    private final Sgemm.Mat[] columnsT;  // per part, when byPositions: col^T [chunkCols, K], in place
    private final MemorySegment[] products; // per part, when byPositions: y^T of its chunk [chunkCols, Cout/g]
    private final Parallel parallel;

    /** Whether the GEMM form takes this conv: f32, not transposed, enough output channels and depth per group. */
    static boolean applies(Node n, LowerContext ctx) {
        if (!(n.op() instanceof Op.Conv c)) {
            return false;
        }
        Shape w = ctx.in(n, 1).shape();
        long taps = w.elementCount() / ((long) w.dim(0) * w.dim(1));
        return ctx.in(n, 0).dtype() == dev.rlx.ir.DType.F32 && w.dim(0) / c.groups() >= 16 && w.dim(1) * taps >= 16;
    }

    ConvGemmF32(Node n, LowerContext ctx) {
        Op.Conv c = (Op.Conv) n.op();
        Buf xb = ctx.in(n, 0);
        Buf wb = ctx.in(n, 1);
        Buf yb = ctx.out(n, 0);
        this.x = xb.seg();
        this.y = yb.seg();
        this.bias = n.inputs().size() == 3 ? ctx.in(n, 2).seg() : null;
        TapMap[] maps = TapMap.threeDims(false, TapMap.spatial(xb.shape()), TapMap.spatial(yb.shape()),
                TapMap.spatial(wb.shape()), c.strides(), c.pads(), c.dilations());
        this.dMap = maps[0];
        this.hMap = maps[1];
        this.wMap = maps[2];
        this.groups = c.groups();
        this.cout = yb.shape().dim(1);
        this.coutPerGroup = cout / groups;
        this.cinPerGroup = xb.shape().dim(1) / groups;
        int taps = dMap.taps * hMap.taps * wMap.taps;
        this.k = cinPerGroup * taps;
        this.positions = dMap.out * hMap.out * wMap.out;
        int images = xb.shape().dim(0);
        long work = (long) images * cout * k * positions;
        int threads = work < (1L << 20) ? 1 : ctx.parallel().threads();
        this.chunkCols = chunkColumns(positions, k, images * groups, threads);
        this.chunks = (positions + chunkCols - 1) / chunkCols;
        this.units = images * groups * chunks;
        this.parts = Math.max(1, Math.min(threads, units));
        this.xChannelStride = (long) dMap.in * hMap.in * wMap.in;
        this.weights = new Sgemm.Mat[groups];
        for (int g = 0; g < groups; g++) {
            weights[g] = new Sgemm.Mat(wb.seg(), (long) g * coutPerGroup * k, k, 1);
        }
        this.byPositions = positions < Sgemm.NR && coutPerGroup > positions;
        this.weightsT = new Sgemm.Mat[byPositions ? groups : 0];
        for (int g = 0; g < weightsT.length; g++) {
            weightsT[g] = new Sgemm.Mat(wb.seg(), (long) g * coutPerGroup * k, 1, k);
        }
        int bColumns = byPositions ? coutPerGroup : chunkCols;
        this.columns = new Sgemm.Mat[parts];
        this.columnsT = new Sgemm.Mat[byPositions ? parts : 0];
        this.products = new MemorySegment[byPositions ? parts : 0];
        this.plans = new Im2colPlan[parts];
        this.workspaces = new Sgemm.Workspace[parts];
        this.hooks = new BiasHook[parts];
        for (int p = 0; p < parts; p++) {
            columns[p] = new Sgemm.Mat(ctx.workspace(4L * k * chunkCols), 0, chunkCols, 1);
            if (byPositions) {
                columnsT[p] = new Sgemm.Mat(columns[p].seg(), 0, 1, chunkCols);
                products[p] = ctx.workspace(4L * chunkCols * coutPerGroup);
            }
            plans[p] = new Im2colPlan(dMap, hMap, wMap, chunkCols);
            workspaces[p] = Sgemm.Workspace.of(ctx.workspace(Sgemm.Workspace.bytes(bColumns)), bColumns);
            hooks[p] = bias == null || byPositions ? null : new BiasHook();
        }
        this.parallel = ctx.parallel();
    }

    @Override
    public void run() {
        cursor.reset(units, parts);
        parallel.parallelFor(parts, 1, this);
    }

    @Override
    public void range(int from, int to) {
        for (int part = from; part < to; part++) {
            for (int begin = cursor.take(); begin >= 0; begin = cursor.take()) {
                for (int u = begin, end = cursor.end(begin); u < end; u++) {
                    unit(u, part);
                }
            }
        }
    }

    /**
     * Output positions per chunk: whole micro-panels ({@link Sgemm#NR} columns) of at most about
     * {@link #CHUNK_FLOATS} floats of column matrix, as few as keep the {@code imageGroups * chunks} units
     * even over the threads: 7 chunks of 7 panels on 2 threads leave one thread idle an eighth of the time,
     * 10 chunks of 5 do not. Smaller chunks cost a little per GEMM call, so a smaller size must gain 2%. With
     * many units per thread the largest size is kept: taking units as they finish evens those out.
     */
    static int chunkColumns(int positions, int k, int imageGroups, int threads) {
        int panels = (positions + Sgemm.NR - 1) / Sgemm.NR;
        int most = Math.max(1, Math.min(panels, CHUNK_FLOATS / k / Sgemm.NR));
        if ((long) imageGroups * ((panels + most - 1) / most) >= 16L * threads) {
            return Math.min(positions, most * Sgemm.NR);
        }
        int best = most;
        double bestShare = -1;
        long[] load = new long[threads];
        for (int size = most; size >= Math.max(1, most / 2); size--) {
            // units go to threads as they finish: each to the least loaded, in order
            Arrays.fill(load, 0);
            for (int g = 0; g < imageGroups; g++) {
                for (int p = 0; p < panels; p += size) {
                    int least = 0;
                    for (int t = 1; t < threads; t++) {
                        least = load[t] < load[least] ? t : least;
                    }
                    load[least] += Math.min(size, panels - p);
                }
            }
            long makespan = Arrays.stream(load).max().orElse(1);
            double share = (double) panels * imageGroups / ((double) makespan * threads); // of the threads' time
            if (share > bestShare + 0.02) {
                best = size;
                bestShare = share;
            }
        }
        return Math.min(positions, best * Sgemm.NR);
    }

    private void unit(int u, int part) {
        int chunk = u % chunks;
        int g = (u / chunks) % groups;
        int image = u / chunks / groups;
        int p0 = chunk * chunkCols;
        int p1 = Math.min(positions, p0 + chunkCols);
        Sgemm.Mat col = columns[part];
        long xGroup = ((long) image * groups * cinPerGroup + (long) g * cinPerGroup) * xChannelStride;
        plans[part].plan(p0, p1);
        plans[part].fill(x, xGroup, xChannelStride, cinPerGroup, col.seg(), chunkCols);
        long yOff = ((long) image * cout + (long) g * coutPerGroup) * positions + p0;
        if (byPositions) {
            MemorySegment t = products[part];
            int np = p1 - p0;
            Sgemm.multiply(columnsT[part], weightsT[g], t, 0, coutPerGroup, 0, np, 0, coutPerGroup, 0, k,
                    workspaces[part], null);
            for (int oc = 0; oc < coutPerGroup; oc++) {
                float b = bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT, g * coutPerGroup + oc);
                long yo = yOff + (long) oc * positions;
                for (int p = 0; p < np; p++) {
                    y.setAtIndex(JAVA_FLOAT, yo + p, t.getAtIndex(JAVA_FLOAT, (long) p * coutPerGroup + oc) + b);
                }
            }
            return;
        }
        BiasHook hook = hooks[part];
        if (hook != null) {
            hook.y0 = yOff;
            hook.oc0 = g * coutPerGroup;
        }
        Sgemm.multiply(weights[g], col, true, y, yOff, positions, 0, coutPerGroup, 0, p1 - p0, 0, k,
                workspaces[part], hook);
    }

    /** Adds the bias of each output channel to a finished tile; {@code y0} and {@code oc0} locate the unit. */
    private final class BiasHook implements Sgemm.TileHook {
        long y0;
        int oc0;

        @Override
        public void tile(int row0, int count, int col0, int cols) {
            for (int r = row0; r < row0 + count; r++) {
                float b = bias.getAtIndex(JAVA_FLOAT, oc0 + r);
                FloatRows.addScalar(y, y0 + (long) r * positions + col0, b, cols);
            }
        }
    }
}
