package dev.rlx.cli;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.models.LlamaBlock;
import dev.rlx.opt.PrecisionPolicy;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.Tick;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rlx demo}: the quickstart graph and a Llama-style decoder block, compiled and timed. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the quickstart graph and a Llama-style decoder block with deterministic weights.")
final class DemoCommand implements Callable<Integer> {
    @Mixin
    SessionOptions sessionOptions;

    @Option(names = "--runs", defaultValue = "50", paramLabel = "N",
            description = "Timed runs of the block at the steady state (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--warmup", paramLabel = "N", description = "Warm-up runs of the block before the timed ones "
            + "(default: until the time per run settles, as for rlx run).")
    Integer warmup;

    @Option(names = "--seed", defaultValue = "42", description = "Seed for weights and input (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--precision", defaultValue = "F32",
            description = "Precision policy: F32, F16, BF16, AMP, AMP_BF16 (default: ${DEFAULT-VALUE}).")
    PrecisionPolicy precision;

    @Option(names = "--no-optimize", description = "Skip the optimising passes (fusion, folding, in-place).")
    boolean noOptimize;

    @Option(names = "--memory-report", description = "Print the decoder block's memory plan (arena, constants, params).")
    boolean memoryReport;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        OptionChecks.atLeast(spec, "--runs", runs, 1);
        if (warmup != null) {
            OptionChecks.atLeast(spec, "--warmup", warmup, 0);
        }
        CompileOptions opts = CompileOptions.defaults().withPrecision(precision).withOptimize(!noOptimize);
        try (Session s = sessionOptions.openFor(() -> LlamaBlock.demo().build(), opts); Progress progress = Progress.onTerminal(spec.commandLine().getErr())) {
            out.println("RLX demo on " + sessionOptions.describe(s));
            quickstart(s, out);
            decoderBlock(s, out, progress);
        }
        out.flush();
        return 0;
    }

    private static void quickstart(Session s, PrintWriter out) {
        Graph g = new Graph("hello");
        Value x = g.input("x", Shape.of(DType.F32, 1, 4));
        Value w = g.param("w", Shape.of(DType.F32, 4, 2));
        g.setOutputs(g.matmul(x, w, Shape.of(DType.F32, 1, 2)));
        try (CompiledGraph c = s.compile(g)) {
            c.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
            float[] y = c.run(Map.of("x", new float[] {1, 2, 3, 4})).get(0);
            out.println("quickstart: [1, 2, 3, 4] x w = " + Arrays.toString(y));
        }
    }

    private void decoderBlock(Session s, PrintWriter out, Progress progress) {
        LlamaBlock b = LlamaBlock.demo();
        out.printf(Locale.ROOT, "decoder block: llama-style, dim %d, %d query heads / %d kv heads of %d, ffn %d, batch %d x seq %d%n",
                b.dim(), b.heads(), b.kvHeads(), b.headDim(), b.ffn(), b.batch(), b.seq());
        Tick t0 = Tick.now();
        progress.show("rlx demo: compiling the decoder block");
        try (CompiledGraph c = s.compile(b.build())) {
            progress.clear();
            out.printf(Locale.ROOT, "  compiled in %.1f ms: %d kernels%n", Tick.now().elapsedMs(t0), c.kernelCount());
            out.printf(Locale.ROOT, "  arena (input, activations, output): %s (no reuse: %s, %.1f%% saved); precision %s,"
                            + " optimise %s%n", mib(c.arenaBytes()), mib(c.unsharedBytes()),
                    c.unsharedBytes() == 0 ? 0.0 : 100.0 * (c.unsharedBytes() - c.arenaBytes()) / c.unsharedBytes(),
                    precision, !noOptimize);
            out.printf(Locale.ROOT, "  weights %s in the graph's weight set, read by reference; kernel workspace and"
                    + " constants %s%n", mib(c.weightBytes()), mib(c.deviceBytes() - c.arenaBytes()));
            if (memoryReport) {
                out.print(c.memoryReport());
            }
            for (Map.Entry<String, Tensor> e : b.randomWeights(seed).entrySet()) {
                c.setParam(e.getKey(), e.getValue());
            }
            c.setInput("x", b.randomInput(seed + 1));
            float[] y = new float[(int) c.output(0).size()];
            SteadyState.Result t = new SteadyState(progress).measure(c::run, warmup, runs);
            progress.clear();
            c.output(0).copyTo(y);
            double sum = 0;
            double abs = 0;
            for (float v : y) {
                sum += v;
                abs += Math.abs(v);
            }
            // bits: a hash of the output's exact bits, the same in every process on this machine and thread count
            out.printf(Locale.ROOT, "  output %s: checksum sum=%.6f mean|y|=%.6f bits=%08x%n", c.output(0).shape(), sum,
                    abs / y.length, java.util.Arrays.hashCode(y));
            out.printf(Locale.ROOT, "  steady state: %s%n", t.summary());
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f MiB", bytes / (1024.0 * 1024.0));
    }
}
