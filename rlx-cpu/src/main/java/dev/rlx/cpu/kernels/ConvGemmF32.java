package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;

/**
 * f32 convolution ({@link Op.Conv}) as im2col + the packed SGEMM: for each image, group and chunk of output
 * rows, the input values every output position reads are laid out as a {@code [K, P]} matrix
 * ({@code K = Cin/groups * taps} rows, {@code P} output positions of the chunk), and
 * {@code y[oc, P] = W[oc, K] . col} with the weight read in place (its {@code [Cout, Cin/g, k...]} layout is
 * already row-major {@code [Cout, K]}). Chunks keep the column matrix near L2 (about 1 MiB); the bias is
 * added to each tile of the output as soon as it is final. Input rows are copied into the column matrix as
 * runs ({@link TapMap}), so padding costs only the zero fill at the edges.
 *
 * <p>Taken when the product is wide enough for the micro-kernel to pay ({@link #applies}); depthwise and
 * small convolutions stay on {@link ConvKernel}'s direct loop.
 */
final class ConvGemmF32 implements Kernel, RangeTask {
    /** Floats of column matrix per chunk, at most (unless one output row needs more). */
    private static final int CHUNK_FLOATS = 256 * 1024;

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
    private final int chunkRows;  // output rows (of outW positions) per chunk
    private final int chunkCols;  // chunkRows * outW: the column matrix's row length
    private final int chunks;     // per (image, group)
    private final int units;      // images * groups * chunks
    private final int parts;
    private final WorkCursor cursor = new WorkCursor(); // units, taken by the parts as they finish
    private final long xChannelStride;
    private final Sgemm.Mat[] weights;   // per group: [Cout/g, K], in place
    private final Sgemm.Mat[] columns;   // per part: its column matrix [K, chunkCols]
    private final Sgemm.Workspace[] workspaces;
    private final BiasHook[] hooks;      // per part; null without a bias
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
        int outRows = dMap.out * hMap.out;
        this.positions = outRows * wMap.out;
        this.chunkRows = Math.max(1, Math.min(outRows, CHUNK_FLOATS / k / Math.max(1, wMap.out)));
        this.chunkCols = chunkRows * wMap.out;
        this.chunks = (outRows + chunkRows - 1) / chunkRows;
        int images = xb.shape().dim(0);
        this.units = images * groups * chunks;
        long work = (long) images * cout * k * positions;
        this.parts = work < (1L << 20) ? 1 : Math.max(1, Math.min(ctx.parallel().threads(), units));
        this.xChannelStride = (long) dMap.in * hMap.in * wMap.in;
        this.weights = new Sgemm.Mat[groups];
        for (int g = 0; g < groups; g++) {
            weights[g] = new Sgemm.Mat(wb.seg(), (long) g * coutPerGroup * k, k, 1);
        }
        this.columns = new Sgemm.Mat[parts];
        this.workspaces = new Sgemm.Workspace[parts];
        this.hooks = new BiasHook[parts];
        for (int p = 0; p < parts; p++) {
            columns[p] = new Sgemm.Mat(ctx.scratch(4L * k * chunkCols), 0, chunkCols, 1);
            workspaces[p] = Sgemm.Workspace.of(ctx.scratch(Sgemm.Workspace.bytes(chunkCols)), chunkCols);
            hooks[p] = bias == null ? null : new BiasHook();
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

    private void unit(int u, int part) {
        int chunk = u % chunks;
        int g = (u / chunks) % groups;
        int image = u / chunks / groups;
        int row0 = chunk * chunkRows;
        int rows = Math.min(chunkRows, dMap.out * hMap.out - row0);
        Sgemm.Mat col = columns[part];
        long xGroup = ((long) image * groups * cinPerGroup + (long) g * cinPerGroup) * xChannelStride;
        im2col(col.seg(), xGroup, row0, rows);
        long p0 = (long) row0 * wMap.out;
        long yOff = ((long) image * cout + (long) g * coutPerGroup) * positions + p0;
        BiasHook hook = hooks[part];
        if (hook != null) {
            hook.y0 = yOff;
            hook.oc0 = g * coutPerGroup;
        }
        Sgemm.multiply(weights[g], col, y, yOff, positions, 0, coutPerGroup, 0, rows * wMap.out, 0, k,
                workspaces[part], hook);
    }

    /** Fills the column matrix for output rows [row0, row0 + rows) of one image and group. */
    private void im2col(MemorySegment col, long xGroup, int row0, int rows) {
        int outW = wMap.out;
        long kRow = 0;
        for (int icg = 0; icg < cinPerGroup; icg++) {
            long xPlane = xGroup + icg * xChannelStride;
            for (int kd = 0; kd < dMap.taps; kd++) {
                for (int kh = 0; kh < hMap.taps; kh++) {
                    for (int kw = 0; kw < wMap.taps; kw++, kRow++) {
                        long dstRow = kRow * chunkCols;
                        for (int r = 0; r < rows; r++) {
                            int outRow = row0 + r;
                            int id = dMap.src(outRow / hMap.out, kd);
                            int ih = hMap.src(outRow % hMap.out, kh);
                            long dst = dstRow + (long) r * outW;
                            if (id < 0 || ih < 0) {
                                fillZero(col, dst, outW);
                            } else {
                                copyRun(col, dst, xPlane + ((long) id * hMap.in + ih) * wMap.in, kw);
                            }
                        }
                    }
                }
            }
        }
    }

    /** One output row's worth of tap {@code kw}: the input run it reads, zeros where it reads padding. */
    private void copyRun(MemorySegment col, long dst, long xRow, int kw) {
        int start = wMap.runStart(kw);
        int len = wMap.runLength(kw);
        fillZero(col, dst, start);
        long src = xRow + wMap.srcStart(kw);
        int step = wMap.srcStep(kw);
        if (step == 1) {
            MemorySegment.copy(x, src * 4, col, (dst + start) * 4, len * 4L);
        } else {
            for (int i = 0; i < len; i++) {
                col.setAtIndex(JAVA_FLOAT, dst + start + i, x.getAtIndex(JAVA_FLOAT, src + (long) i * step));
            }
        }
        fillZero(col, dst + start + len, wMap.out - start - len);
    }

    private static void fillZero(MemorySegment seg, long at, int n) {
        for (int i = 0; i < n; i++) { // a loop, not asSlice().fill(): a slice is an allocation
            seg.setAtIndex(JAVA_FLOAT, at + i, 0f);
        }
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
