package dev.rlx.bench;

import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.FftNorm;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.jtransforms.fft.FloatFFT_1D;
import org.jtransforms.utils.CommonUtils;
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
import org.visnow.jlargearrays.ConcurrencyUtils;

/**
 * One-thread f32 forward FFTs of 2^10 to 2^20 points and of the non-powers of two 1000 (2^3 5^3) and 4093 (prime), RLX against JTransforms 3.2 ({@link FloatFFT_1D}) in the
 * same run: {@code complex} is a complex-to-complex transform of n points, {@code real} a real-to-complex one
 * of n samples (RLX rfft to n/2+1 bins; JTransforms realForward, packed in place). Each call copies the input
 * from a Java array into the library's working memory and transforms it: {@code setInput + run} for RLX
 * (out of place, in the arena), {@code arraycopy + transform} for JTransforms (in place).
 *
 * <pre>./rlx-bench/run Fft</pre>
 * (one length: {@code ./rlx-bench/run Fft -p n=4093}).
 * {@link BenchMain} prints the {@code jtransforms / rlx} time ratio per size (above 1: RLX is faster).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 10, time = 1) // Vector API code is ~1000x slower until C2 compiles it (seconds)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class FftBenchmark {
    @Param({"1000", "1024", "4093", "4096", "16384", "65536", "262144", "1048576"})
    private int n;

    @Param({"complex", "real"})
    private String transform;

    private float[] input;
    private float[] work;
    private Session session;
    private CompiledGraph compiled;
    private FloatFFT_1D jtransforms;

    @Setup(Level.Trial)
    public void setUp() {
        boolean complex = transform.equals("complex");
        input = new float[complex ? 2 * n : n];
        Random r = new Random(1);
        for (int i = 0; i < input.length; i++) {
            input[i] = r.nextFloat() - 0.5f;
        }
        work = input.clone();

        Graph g = new Graph("fft");
        Value x = g.input("x", complex ? Shape.of(DType.F32, n, 2) : Shape.of(DType.F32, n));
        g.setOutputs(g.fft(x, complex ? FftKind.C2C_FORWARD : FftKind.R2C, 0, FftNorm.BACKWARD, n));
        session = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
        compiled = session.compile(g);

        ConcurrencyUtils.setNumberOfThreads(1);
        CommonUtils.setThreadsBeginN_1D_FFT_2Threads(Long.MAX_VALUE);
        CommonUtils.setThreadsBeginN_1D_FFT_4Threads(Long.MAX_VALUE);
        jtransforms = new FloatFFT_1D(n);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        compiled.close();
        session.close();
    }

    @Benchmark
    public CompiledGraph rlx() {
        compiled.setInput("x", input);
        compiled.run();
        return compiled;
    }

    @Benchmark
    public float[] jtransforms() {
        System.arraycopy(input, 0, work, 0, input.length);
        if (transform.equals("complex")) {
            jtransforms.complexForward(work);
        } else {
            jtransforms.realForward(work);
        }
        return work;
    }
}
