package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;

/**
 * f32 2-D transposed convolution ({@link Op.ConvTranspose}) whose kernel equals its stride, unpadded and
 * undilated: the 2x2 stride-2 upsampling of U-Nets and text detectors. Each output pixel then has exactly one
 * tap per input channel, so per image and group the output is the product {@code Z = W^T X}
 * ({@code [Cout/g * taps, Cin/g] . [Cin/g, H*W]}, the weight's {@code [Cin, Cout/g, kh, kw]} layout read in place
 * as the transposed left operand) scattered onto the output grid with the bias. The direct loop
 * ({@link ConvKernel}) instead walks strided, unvectorised runs: 10-30% of a detector's time.
 *
 * <p>Work units are (image, group, block of Z's rows, block of positions), taken as the parts finish; each part
 * computes its unit's Z block into its own scratch, then writes it out.
 */
final class ConvTransposeGemmF32 implements Kernel, RangeTask {
    /** Rows of Z per unit: whole micro-tiles. */
    private static final int ROW_BLOCK = Sgemm.MR * 8;
    /** Positions per unit: one packed width of B. */
    private static final int COL_BLOCK = Sgemm.NC;

    private final MemorySegment x;
    private final MemorySegment y;
    private final MemorySegment bias; // null when there is none
    private final Sgemm.Mat[] weights; // per group: W^T [Cout/g * taps, Cin/g], in place
    private final Sgemm.Mat[] inputs;  // per (image, group): X [Cin/g, H*W], in place
    private final int groups;
    private final int cout;
    private final int coutPerGroup;
    private final int cinPerGroup;
    private final int kh;
    private final int kw;
    private final int win;
    private final int hout;
    private final int wout;
    private final int positions; // H * W of the input
    private final int zRows;     // Cout/g * taps
    private final int rowBlocks;
    private final int colBlocks;
    private final int units;
    private final int parts;
    private final WorkCursor cursor = new WorkCursor();
    private final MemorySegment[] scratch; // per part: [ROW_BLOCK, COL_BLOCK]
    private final Sgemm.Workspace[] workspaces;
    private final Parallel parallel;

    /** Whether this form takes {@code n}: f32, 2 spatial dims, kernel = stride, no padding, dilation or output padding. */
    static boolean applies(Node n, LowerContext ctx) {
        if (!(n.op() instanceof Op.ConvTranspose c) || ctx.in(n, 0).dtype() != DType.F32) {
            return false;
        }
        Shape xs = ctx.in(n, 0).shape();
        Shape ws = ctx.in(n, 1).shape();
        Shape ys = ctx.out(n, 0).shape();
        if (xs.rank() != 4 || ws.rank() != 4 || c.strides().size() != 2) {
            return false;
        }
        for (int i = 0; i < 2; i++) {
            if (c.strides().get(i) != ws.dim(2 + i) || c.dilations().get(i) != 1 || c.outputPadding().get(i) != 0
                    || ys.dim(2 + i) != (long) xs.dim(2 + i) * ws.dim(2 + i)) {
                return false;
            }
        }
        return c.pads().stream().allMatch(p -> p == 0);
    }

    ConvTransposeGemmF32(Node n, LowerContext ctx) {
        Op.ConvTranspose c = (Op.ConvTranspose) n.op();
        Buf xb = ctx.in(n, 0);
        Buf wb = ctx.in(n, 1);
        Buf yb = ctx.out(n, 0);
        Shape xs = xb.shape();
        Shape ws = wb.shape();
        this.x = xb.seg();
        this.y = yb.seg();
        this.bias = n.inputs().size() == 3 ? ctx.in(n, 2).seg() : null;
        this.groups = c.groups();
        this.cout = yb.shape().dim(1);
        this.coutPerGroup = cout / groups;
        this.cinPerGroup = xs.dim(1) / groups;
        this.kh = ws.dim(2);
        this.kw = ws.dim(3);
        this.win = xs.dim(3);
        this.hout = yb.shape().dim(2);
        this.wout = yb.shape().dim(3);
        this.positions = xs.dim(2) * xs.dim(3);
        this.zRows = coutPerGroup * kh * kw;
        this.rowBlocks = (zRows + ROW_BLOCK - 1) / ROW_BLOCK;
        this.colBlocks = (positions + COL_BLOCK - 1) / COL_BLOCK;
        this.units = xs.dim(0) * groups * rowBlocks * colBlocks;
        long work = (long) xs.dim(0) * cout * kh * kw * cinPerGroup * positions;
        int threads = work < (1L << 20) ? 1 : ctx.parallel().threads();
        this.parts = Math.max(1, Math.min(threads, units));
        this.weights = new Sgemm.Mat[groups];
        long wGroup = (long) cinPerGroup * zRows;
        for (int g = 0; g < groups; g++) {
            weights[g] = new Sgemm.Mat(wb.seg(), g * wGroup, 1, zRows);
        }
        this.inputs = new Sgemm.Mat[xs.dim(0) * groups];
        for (int i = 0; i < inputs.length; i++) {
            inputs[i] = new Sgemm.Mat(x, (long) i * cinPerGroup * positions, positions, 1);
        }
        int cols = Math.min(COL_BLOCK, positions);
        this.scratch = new MemorySegment[parts];
        this.workspaces = new Sgemm.Workspace[parts];
        for (int p = 0; p < parts; p++) {
            scratch[p] = ctx.workspace(4L * ROW_BLOCK * cols);
            workspaces[p] = Sgemm.Workspace.of(ctx.workspace(Sgemm.Workspace.bytes(cols)), cols);
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
        int cb = u % colBlocks;
        int rb = (u / colBlocks) % rowBlocks;
        int g = (u / colBlocks / rowBlocks) % groups;
        int image = u / colBlocks / rowBlocks / groups;
        int r0 = rb * ROW_BLOCK;
        int r1 = Math.min(zRows, r0 + ROW_BLOCK);
        int c0 = cb * COL_BLOCK;
        int c1 = Math.min(positions, c0 + COL_BLOCK);
        int ldz = c1 - c0;
        MemorySegment z = scratch[part];
        Sgemm.multiply(weights[g], inputs[image * groups + g], z, -(long) r0 * ldz - c0, ldz, r0, r1, c0, c1, 0, cinPerGroup, workspaces[part], null);
        int taps = kh * kw;
        for (int r = r0; r < r1; r++) {
            int ocg = r / taps;
            int th = (r % taps) / kw;
            int tw = r % kw;
            int oc = g * coutPerGroup + ocg;
            float bv = bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT, oc);
            long plane = ((long) image * cout + oc) * hout;
            long zo = (long) (r - r0) * ldz - c0;
            for (int p = c0; p < c1; p++) {
                int i = p / win;
                int j = p - i * win;
                y.setAtIndex(JAVA_FLOAT, (plane + (long) i * kh + th) * wout + (long) j * kw + tw,
                        z.getAtIndex(JAVA_FLOAT, zo + p) + bv);
            }
        }
    }
}
