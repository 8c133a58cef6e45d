package dev.rlx.bench;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Dispatch overhead and allocation of the allocation-free call path on the quickstart graph
 * ({@code [1,4] x [4,2]} matmul): {@code setInput + run + output(0).copyTo}.
 *
 * <pre>./rlx-bench/run RunOverhead -prof gc</pre>
 * {@code gc.alloc.rate.norm} is the bytes allocated per call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class RunOverheadBenchmark {
    private Session session;
    private CompiledGraph compiled;
    private final float[] x = {1, 2, 3, 4};
    private final float[] out = new float[2];

    @Setup(Level.Trial)
    public void setUp() {
        Graph g = new Graph("hello");
        Value xv = g.input("x", Shape.of(DType.F32, 1, 4));
        Value w = g.param("w", Shape.of(DType.F32, 4, 2));
        g.setOutputs(g.matmul(xv, w));
        session = new Session(Device.CPU);
        compiled = session.compile(g);
        compiled.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
        compiled.setInput("x", x);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        compiled.close();
        session.close();
    }

    /** The whole allocation-free call: write the input, run, read the output. */
    @Benchmark
    public float[] setInputRunCopy() {
        compiled.setInput("x", x);
        compiled.run();
        compiled.output(0).copyTo(out);
        return out;
    }

    /** {@code run()} alone: the per-call dispatch cost. */
    @Benchmark
    public void run() {
        compiled.run();
    }
}
