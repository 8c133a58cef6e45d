package dev.rlx.bench;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.LinkedHashMap;
import java.util.Map;
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
 * all-MiniLM-L6-v2, batch 1, one forward pass on the same token ids: RLX (imported, compiled once, run) against
 * ONNX Runtime Java (CPU provider, all graph optimisations) with the same intra-op thread count, in one fork.
 * Both keep their inputs bound; ONNX Runtime returns a fresh output tensor per run, RLX leaves it in its arena.
 *
 * <pre>./rlx-bench/run MiniLm</pre>
 *
 * {@link BenchMain} prints the ratio table (ONNX Runtime ms over RLX ms: above 1 means RLX is faster).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xmx4g"})
public class MiniLmBenchmark {
    @Param({"fp32", "int8"})
    private String model;

    @Param({"16", "128", "256"})
    private int seq;

    @Param({"1", "2"})
    private int threads;

    private Session session;
    private CompiledGraph rlx;
    private CpuSuiteCases.OrtPeer ort;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        MiniLm which = model.equals("int8") ? MiniLm.INT8 : MiniLm.FP32;
        Map<String, long[]> data = tokens(seq);
        Map<String, Tensor> in = inputs(data, seq);
        session = new Session(Device.CPU, CompileOptions.defaults().withThreads(threads));
        rlx = which.model().importGraph(OnnxBinding.of(in)).compile(session);
        for (String name : rlx.inputNames()) {
            rlx.setInput(name, in.get(name));
        }
        ort = CpuSuiteCases.OrtPeer.ofLongs(which.modelBytes(), data, new long[] {1, seq}, threads);
    }

    /** [CLS], seeded random word-piece ids, [SEP]; mask all ones, token types zero. */
    static Map<String, long[]> tokens(int seq) {
        return tokens(seq, 1);
    }

    /** {@code batch} rows of {@link #tokens(int)}'s kind, row b seeded by {@code seq + b} (row 0 as batch 1). */
    static Map<String, long[]> tokens(int seq, int batch) {
        long[] ids = new long[batch * seq];
        long[] mask = new long[batch * seq];
        for (int b = 0; b < batch; b++) {
            Random r = new Random(seq + b);
            for (int i = 0; i < seq; i++) {
                ids[b * seq + i] = i == 0 ? 101 : i == seq - 1 ? 102 : 1996 + r.nextInt(30522 - 1996);
                mask[b * seq + i] = 1;
            }
        }
        Map<String, long[]> data = new LinkedHashMap<>();
        data.put("input_ids", ids);
        data.put("attention_mask", mask);
        data.put("token_type_ids", new long[batch * seq]);
        return data;
    }

    /** {@link #tokens} as the model's [1, seq] input tensors. */
    static Map<String, Tensor> inputs(Map<String, long[]> tokens, int seq) {
        return inputs(tokens, 1, seq);
    }

    /** {@link #tokens(int, int)} as the model's [batch, seq] input tensors. */
    static Map<String, Tensor> inputs(Map<String, long[]> tokens, int batch, int seq) {
        Map<String, Tensor> in = new LinkedHashMap<>();
        tokens.forEach((k, v) -> in.put(k, Tensor.of(v, batch, seq)));
        return in;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        rlx.close();
        session.close();
        ort.close();
    }

    @Benchmark
    public void rlx() {
        rlx.run();
    }

    @Benchmark
    public void onnxRuntime() {
        ort.run();
    }
}
