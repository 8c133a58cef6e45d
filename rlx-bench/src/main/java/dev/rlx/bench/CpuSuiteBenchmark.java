package dev.rlx.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The CPU backend against its peers, case by case ({@link CpuSuiteCases}), at 1 and 2 threads, both measured in
 * the same fork. Run it with OpenBLAS free to pick its kernel for the machine:
 *
 * <pre>env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ./rlx-bench/run CpuSuite</pre>
 *
 * {@link BenchMain} then prints the table of rates and ratios and writes it as JSON and a chart
 * ({@link CpuSuiteReport}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 4, time = 1) // C2 needs a few seconds for the vector kernels
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xmx8g"})
public class CpuSuiteBenchmark {
    @Param({"sgemm:256", "sgemm:512", "sgemm:1024", "sgemm:2048", "gemm:128x384x1536", "gemv:4096x4096",
            "softmax:4096x4096", "rmsnorm:4096x4096", "elementwise:4096x4096", "attention:128", "attention:512",
            "attention:2048", "conv3x3:64x56x56"})
    private String op;

    @Param({"1", "2"})
    private int threads;

    /**
     * Which side of the case runs: a parameter rather than two benchmark methods, because JMH runs every
     * parameter set of one method before the next method. As the innermost parameter (JMH varies the last
     * name in alphabetical order fastest) it puts RLX's fork and its peer's one after the other, seconds
     * apart instead of minutes: on a shared machine whose memory bandwidth drifts by 2x within minutes, the
     * ratio is only meaningful that way.
     */
    @Param({BenchMain.RLX, "peer"})
    private String who;

    private CpuSuiteCase c;
    private Runnable side;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        c = CpuSuiteCases.create(op, threads);
        side = who.equals(BenchMain.RLX) ? c.rlx : c.peer;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        c.close();
    }

    @Benchmark
    public void run() {
        side.run();
    }
}
