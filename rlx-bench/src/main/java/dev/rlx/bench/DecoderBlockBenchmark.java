package dev.rlx.bench;

import dev.rlx.ir.Tensor;
import dev.rlx.ir.models.LlamaBlock;
import dev.rlx.opt.PrecisionPolicy;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
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
 * One run of the demo's Llama-style decoder block ({@link LlamaBlock#demo()}: d=512, GQA 8/2, ffn 1376,
 * seq 32) with and without the optimising passes (fusion, folding, CSE, in-place) and under each precision
 * policy.
 *
 * <pre>./rlx-bench/run DecoderBlock -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class DecoderBlockBenchmark {
    @Param({"true", "false"})
    public boolean optimize;

    @Param({"F32", "F16", "BF16", "AMP"})
    public PrecisionPolicy precision;

    private Session session;
    private CompiledGraph compiled;

    @Setup(Level.Trial)
    public void setUp() {
        LlamaBlock b = LlamaBlock.demo();
        session = new Session(Device.CPU, CompileOptions.defaults().withOptimize(optimize).withPrecision(precision));
        compiled = session.compile(b.build());
        for (Map.Entry<String, Tensor> e : b.randomWeights(42).entrySet()) {
            compiled.setParam(e.getKey(), e.getValue());
        }
        compiled.setInput("x", b.randomInput(43));
        System.out.printf("%n[setup] optimize=%s precision=%s: %d kernels, arena %d bytes (no reuse %d)%n", optimize,
                precision, compiled.kernelCount(), compiled.arenaBytes(), compiled.unsharedBytes());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        compiled.close();
        session.close();
    }

    @Benchmark
    public void run() {
        compiled.run();
    }
}
