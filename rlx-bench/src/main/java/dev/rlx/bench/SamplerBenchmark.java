package dev.rlx.bench;

import dev.rlx.llm.sample.SampleOpts;
import dev.rlx.llm.sample.SamplerChain;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time per sampled token over a 131,072-token vocabulary on one thread: {@code SamplerChain.sample(logits)}
 * for llama.cpp's default chain and for classic options, with and without the fast path (top-k filled
 * straight from the logits). Logits are 16 rows of
 * Gaussian noise (standard deviation 3) generated in setup; each call samples the next row.
 *
 * <pre>./rlx-bench/run Sampler -f 1 -wi 3 -i 5 -prof gc</pre>
 * <ul>
 * <li>{@code DEFAULT}: {@code SampleOpts.defaults()}: top-k 40, top-p 0.95, min-p 0.05, temperature 0.8, dist.</li>
 * <li>{@code CLASSIC}: the same without min-p: top-k 40, top-p 0.95, temperature 0.8.</li>
 * <li>{@code CLASSIC_GENERAL}: those options without the fast path (the vocabulary copied, then top-k).</li>
 * <li>{@code CLASSIC_TOP_P}: top-p 0.95 and temperature only: a softmax over the vocabulary, then only the
 *     nucleus is sorted.</li>
 * </ul>
 */
@State(Scope.Thread)
@Threads(1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class SamplerBenchmark {
    private static final int VOCAB = 131_072;
    private static final int ROWS = 16;

    /** Which options to sample with. */
    public enum Chain { DEFAULT, CLASSIC, CLASSIC_GENERAL, CLASSIC_TOP_P }

    @Param
    public Chain chain;

    private SamplerChain sampler;
    private float[][] logits;
    private int row;

    @Setup
    public void setUp() {
        SampleOpts defaults = SampleOpts.defaults().toBuilder().seed(42).build();
        SampleOpts classic = defaults.toBuilder().minP(0f).build();
        sampler = switch (chain) {
            case DEFAULT -> defaults.intoChain();
            case CLASSIC -> classic.intoChain();
            case CLASSIC_GENERAL -> classic.intoChain(false);
            case CLASSIC_TOP_P -> classic.toBuilder().topK(0).build().intoChain();
        };
        Random r = new Random(1);
        logits = new float[ROWS][VOCAB];
        for (float[] l : logits) {
            for (int i = 0; i < VOCAB; i++) {
                l[i] = (float) (r.nextGaussian() * 3);
            }
        }
    }

    @Benchmark
    public int sampleToken() {
        row = (row + 1) & (ROWS - 1);
        return sampler.sample(logits[row]);
    }
}
