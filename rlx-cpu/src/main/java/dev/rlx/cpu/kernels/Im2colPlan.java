package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import java.lang.foreign.MemorySegment;

/**
 * im2col for one chunk of output positions, worked out once per chunk instead of once per column-matrix row:
 * for each kernel tap, the input runs to copy (the same for every input channel, at that channel's plane) and
 * the column ranges to zero (padding). Working them out per row cost more than the copying itself when a
 * chunk is a few micro-panels wide (K = 576, 64 positions per chunk: 0.87 ms of im2col where 0.4 was copying).
 *
 * <p>Positions are flattened over (d, h, w); position p of the chunk {@code [p0, p1)} goes to column
 * {@code p - p0}. Where the input is read with stride 1 along W and its rows are as long as the output rows,
 * the runs of consecutive rows of one plane are one contiguous stretch of the input: one copy, then the gaps
 * between the runs are zeroed.
 */
final class Im2colPlan {
    private final TapMap dMap;
    private final TapMap hMap;
    private final TapMap wMap;
    private final int taps;
    private final int[] copyEnd;  // per tap: its copies are [copyEnd[t - 1], copyEnd[t])
    private final int[] zeroEnd;  // likewise for the zero ranges
    private final int[] copyDst;  // column of the first element
    private final long[] copySrc; // input element, from the channel plane's start
    private final int[] copyLen;
    private final int[] zeroDst;
    private final int[] zeroLen;
    private int copies;
    private int zeros;

    /** For chunks of at most {@code chunkCols} positions. */
    Im2colPlan(TapMap dMap, TapMap hMap, TapMap wMap, int chunkCols) {
        this.dMap = dMap;
        this.hMap = hMap;
        this.wMap = wMap;
        this.taps = dMap.taps * hMap.taps * wMap.taps;
        int rows = Math.min(dMap.out * hMap.out, chunkCols / wMap.out + 2); // output rows a chunk touches
        this.copyEnd = new int[taps];
        this.zeroEnd = new int[taps];
        this.copyDst = new int[taps * rows];
        this.copySrc = new long[taps * rows];
        this.copyLen = new int[taps * rows];
        this.zeroDst = new int[taps * (2 * rows + 1)];
        this.zeroLen = new int[taps * (2 * rows + 1)];
    }

    /** Works out the chunk of positions {@code [p0, p1)}. */
    void plan(int p0, int p1) {
        copies = 0;
        zeros = 0;
        int outW = wMap.out;
        int firstRow = p0 / outW;
        int lastRow = (p1 - 1) / outW;
        int t = 0;
        for (int kd = 0; kd < dMap.taps; kd++) {
            for (int kh = 0; kh < hMap.taps; kh++) {
                for (int kw = 0; kw < wMap.taps; kw++, t++) {
                    int od = firstRow / hMap.out;
                    int oh = firstRow % hMap.out;
                    for (int o = firstRow; o <= lastRow; ) {
                        int id = dMap.src(od, kd);
                        int ih = hMap.src(oh, kh);
                        int rows = 1;
                        if (id < 0 || ih < 0) {
                            zero((long) o * outW, (long) (o + 1) * outW, p0, p1);
                        } else {
                            rows = consecutiveRows(oh, lastRow + 1 - o, ih, kh, kw);
                            runs(o, rows, ((long) id * hMap.in + ih) * wMap.in, kw, p0, p1);
                        }
                        o += rows;
                        oh += rows; // a stretch ends within its plane
                        if (oh == hMap.out) {
                            oh = 0;
                            od++;
                        }
                    }
                    copyEnd[t] = copies;
                    zeroEnd[t] = zeros;
                }
            }
        }
    }

    /**
     * How many output rows from row {@code oh} of a plane (at most {@code max}) read tap (kh, kw) from
     * consecutive input rows {@code ih, ih + 1, ...} laid out like the output rows.
     */
    private int consecutiveRows(int oh, int max, int ih, int kh, int kw) {
        if (wMap.in != wMap.out || wMap.srcStep(kw) != 1) {
            return 1;
        }
        int n = 1;
        while (n < max && oh + n < hMap.out && hMap.src(oh + n, kh) == ih + n) {
            n++;
        }
        return n;
    }

    /**
     * Output rows {@code [row, row + rows)}' worth of tap {@code kw}, from input row {@code xRow} (within the
     * plane) on, clipped to the chunk: one copy of the runs and what lies between them, then zeros around them.
     */
    private void runs(int row, int rows, long xRow, int kw, int p0, int p1) {
        int outW = wMap.out;
        int start = wMap.runStart(kw);
        int len = wMap.runLength(kw);
        long first = (long) row * outW + start;              // the first run's first position
        long end = first + (long) (rows - 1) * outW + len;   // one past the last run's last position
        long a = Math.max(first, p0);
        long b = Math.min(end, p1);
        if (a < b) {
            copyDst[copies] = (int) (a - p0);
            copySrc[copies] = xRow + wMap.srcStart(kw) + (a - first) * wMap.srcStep(kw); // rows == 1 unless step 1
            copyLen[copies] = (int) (b - a);
            copies++;
        }
        zero((long) row * outW, first, p0, p1);
        for (int r = 0; r < rows; r++) { // the zeros after each run and, up to the next row's run, before it
            long gap = (long) (row + r) * outW + start + len;
            zero(gap, r + 1 < rows ? gap + outW - len : (long) (row + r + 1) * outW, p0, p1);
        }
    }

    private void zero(long from, long to, int p0, int p1) {
        long a = Math.max(from, p0);
        long b = Math.min(to, p1);
        if (a < b) {
            zeroDst[zeros] = (int) (a - p0);
            zeroLen[zeros] = (int) (b - a);
            zeros++;
        }
    }

    /**
     * Writes the planned chunk's column matrix (row length {@code chunkCols}): rows {@code c * taps + t} for
     * input channels {@code c < channels}, whose planes start {@code planeStride} apart from {@code x0}.
     */
    void fill(MemorySegment x, long x0, long planeStride, int channels, MemorySegment col, int chunkCols) {
        long kRow = 0;
        for (int c = 0; c < channels; c++) {
            long plane = x0 + c * planeStride;
            for (int t = 0; t < taps; t++, kRow++) {
                long row = kRow * chunkCols;
                int step = wMap.srcStep(t % wMap.taps);
                for (int i = t == 0 ? 0 : copyEnd[t - 1]; i < copyEnd[t]; i++) {
                    if (step == 1) {
                        FloatRows.copy(x, plane + copySrc[i], col, row + copyDst[i], copyLen[i]);
                    } else {
                        for (int j = 0; j < copyLen[i]; j++) {
                            col.setAtIndex(JAVA_FLOAT, row + copyDst[i] + j,
                                    x.getAtIndex(JAVA_FLOAT, plane + copySrc[i] + (long) j * step));
                        }
                    }
                }
                for (int i = t == 0 ? 0 : zeroEnd[t - 1]; i < zeroEnd[t]; i++) {
                    FloatRows.fill(col, row + zeroDst[i], 0f, zeroLen[i]);
                }
            }
        }
    }
}
