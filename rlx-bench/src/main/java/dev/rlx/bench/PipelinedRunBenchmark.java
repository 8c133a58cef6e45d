package dev.rlx.bench;

import dev.rlx.ir.Tensor;
import dev.rlx.ir.models.LlamaBlock;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.streams.PipelinedGraph;
import java.util.List;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * 32 runs of the demo decoder block ({@link LlamaBlock#demo()}), each on an input the caller prepares first: one
 * after another ({@code sequential}: prepare, run, prepare, run...) or through {@link PipelinedGraph}
 * ({@code pipelined}: prepare input i+1 while run i computes on the pipeline's worker, then sync). Preparing an
 * input is {@code prepPasses} passes of a smoothing filter over it (a stand-in for tokenising, decoding, resizing).
 *
 * <pre>./rlx-bench/run PipelinedRun -f 1 -wi 2 -i 3</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class PipelinedRunBenchmark {
    static final int RUNS = 32;

    @Param({"8", "64"})
    public int prepPasses;

    /** Worker threads of the pipeline's graph: 0 the backend's default (all cores), else that many (a core left free
     *  for the caller's preparation). The sequential graph always has the default. */
    @Param({"0", "1"})
    public int pipelineThreads;

    private CompiledGraph pipelineGraph;
    private Session session;
    private CompiledGraph compiled;
    private PipelinedGraph pipeline;
    private float[] seed;

    @Setup(Level.Trial)
    public void setUp() {
        LlamaBlock b = LlamaBlock.demo();
        session = new Session(Device.CPU);
        compiled = session.compile(b.build());
        for (Map.Entry<String, Tensor> e : b.randomWeights(42).entrySet()) {
            compiled.setParam(e.getKey(), e.getValue());
        }
        seed = b.randomInput(43).toFloatArray();
        pipelineGraph = pipelineThreads == 0 ? compiled
                : session.compile(b.build(), dev.rlx.runtime.CompileOptions.defaults().withThreads(pipelineThreads));
        if (pipelineGraph != compiled) {
            for (Map.Entry<String, Tensor> e : b.randomWeights(42).entrySet()) {
                pipelineGraph.setParam(e.getKey(), e.getValue());
            }
        }
        pipeline = new PipelinedGraph(pipelineGraph);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pipeline.close();
        if (pipelineGraph != compiled) {
            pipelineGraph.close();
        }
        compiled.close();
        session.close();
    }

    /** Input {@code i}: the seed shifted by i, smoothed {@code prepPasses} times. */
    private float[] prepare(int i) {
        float[] x = new float[seed.length];
        for (int j = 0; j < x.length; j++) {
            x[j] = seed[(j + i) % seed.length];
        }
        for (int p = 0; p < prepPasses; p++) {
            float prev = x[0];
            for (int j = 1; j < x.length - 1; j++) {
                float cur = x[j];
                x[j] = 0.25f * prev + 0.5f * cur + 0.25f * x[j + 1];
                prev = cur;
            }
        }
        return x;
    }

    @Benchmark
    public void sequential(Blackhole bh) {
        for (int i = 0; i < RUNS; i++) {
            bh.consume(compiled.run(Map.of("x", prepare(i))));
        }
    }

    /** The 32 preparations alone: with {@link #runsOnly}, the bound pipelining works against. */
    public void prepOnly(Blackhole bh) {
        for (int i = 0; i < RUNS; i++) {
            bh.consume(prepare(i));
        }
    }

    /** The 32 runs alone, on one prepared input. */
    public void runsOnly(Blackhole bh) {
        Map<String, float[]> in = Map.of("x", prepare(0));
        for (int i = 0; i < RUNS; i++) {
            bh.consume(compiled.run(in));
        }
    }

    @Benchmark
    public void pipelined(Blackhole bh) {
        for (int i = 0; i < RUNS; i++) {
            pipeline.commitNoWait(Map.of("x", prepare(i)));
        }
        List<List<float[]>> out = pipeline.syncPending();
        bh.consume(out);
    }
}
