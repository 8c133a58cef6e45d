package dev.rlx.cpu.kernels;

/**
 * Base of the kernels that work line by line along one axis ({@link AxisLines}): one line is one parallel
 * unit, so subclasses only write {@link #range}, the loop over their lines.
 */
abstract class AxisLineKernel implements Kernel, RangeTask {
    protected final AxisLines lines;
    private final Parallel parallel;

    AxisLineKernel(AxisLines lines, Parallel parallel) {
        this.lines = lines;
        this.parallel = parallel;
    }

    @Override
    public void run() {
        parallel.parallelFor(lines.count(), Grain.of(lines.length()), this);
    }
}
