package dev.rlx.cpu.kernels;

import java.lang.foreign.MemorySegment;

/**
 * Runs an Fft node line by line: the lines (one per position of every dim but the axis) are split into parts,
 * contiguous runs of lines that are the parallel units, each with its own workspace inside the
 * {@link FftLine}. Nothing is allocated per run.
 */
final class FftKernel implements Kernel, RangeTask {
    private final MemorySegment x;
    private final MemorySegment y;
    private final AxisLines lines; // operand 0: x, 1: y; offsets and steps in scalars (f32 or f64)
    private final FftLine line;
    private final int parts;
    private final Parallel parallel;

    FftKernel(MemorySegment x, MemorySegment y, AxisLines lines, FftLine line, int parts, Parallel parallel) {
        this.x = x;
        this.y = y;
        this.lines = lines;
        this.line = line;
        this.parts = parts;
        this.parallel = parallel;
    }

    @Override
    public void run() {
        parallel.parallelFor(parts, 1, this);
    }

    @Override
    public void range(int from, int to) {
        long count = lines.count();
        long xStep = lines.step(0);
        long yStep = lines.step(1);
        for (int p = from; p < to; p++) {
            for (int l = (int) (count * p / parts), end = (int) (count * (p + 1) / parts); l < end; l++) {
                line.run(x, lines.start(0, l), xStep, y, lines.start(1, l), yStep, p);
            }
        }
    }
}
