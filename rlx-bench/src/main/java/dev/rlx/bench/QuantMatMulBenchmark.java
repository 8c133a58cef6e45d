package dev.rlx.bench;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.quant.WeightFormat;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
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
 * {@code Op.QuantMatMul} on a Llama-1B-sized projection ({@code K = 2048}, {@code N = 8192}: 16.8 M weights) for
 * one row of x (a decode step) and 16 (a batch of sequences), against the machine's streaming read of the same
 * weight bytes ({@link #streamRead}: a plain sum over them, the memory ceiling of a GEMV).
 *
 * <pre>./rlx-bench/run QuantMatMul -p threads=1</pre>
 * Weight GB/s = bytes of the format / time; the decode step is memory-bound when it nears {@code streamRead}'s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class QuantMatMulBenchmark {
    private static final int K = 2048;
    private static final int N = 8192;

    @Param({"Q8_0", "Q4_0", "F16"})
    public String format;

    @Param({"1", "16"})
    public int rows;

    @Param({"1"})
    public int threads;

    private Session session;
    private CompiledGraph compiled;
    private MemorySegment weights;

    @Setup(Level.Trial)
    public void setUp() {
        WeightFormat f = WeightFormat.valueOf(format);
        int rowBytes = (int) f.rowBytes(K);
        Graph g = new Graph("qmm");
        g.setOutputs(g.quantMatMul(g.input("x", Shape.of(DType.F32, rows, K)),
                g.param("w", Shape.of(DType.U8, N, rowBytes)), f));
        session = new Session(Device.CPU);
        compiled = session.compile(g, CompileOptions.defaults().withThreads(threads));
        Random r = new Random(1);
        byte[] wb = new byte[N * rowBytes];
        float[] row = new float[K];
        MemorySegment seg = MemorySegment.ofArray(wb);
        for (int j = 0; j < N; j++) {
            for (int i = 0; i < K; i++) {
                row[i] = (float) r.nextGaussian();
            }
            f.encode(row, 0, seg, (long) j * rowBytes, K);
        }
        compiled.setParam("w", Tensor.ofBytes(Shape.of(DType.U8, N, rowBytes), wb));
        float[] x = new float[rows * K];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        compiled.setInput("x", x);
        weights = Arena.ofAuto().allocate(wb.length, 64);
        MemorySegment.copy(wb, 0, weights, ValueLayout.JAVA_BYTE, 0, wb.length);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        compiled.close();
        session.close();
    }

    @Benchmark
    public void quantMatMul() {
        compiled.run();
    }

    /** The same number of weight bytes read as longs and summed: the memory ceiling of one GEMV. */
    @Benchmark
    public long streamRead() {
        long s = 0;
        long n = weights.byteSize() / 8;
        for (long i = 0; i < n; i++) {
            s += weights.getAtIndex(ValueLayout.JAVA_LONG, i);
        }
        return s;
    }
}
