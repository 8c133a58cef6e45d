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
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.Tick;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rlx demo}: the quickstart graph and a Llama-style decoder block, compiled and timed. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the quickstart graph and a Llama-style decoder block with deterministic weights.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--device", defaultValue = "cpu", description = "Device to run on (default: ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--runs", defaultValue = "50", description = "Timed runs of the block (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--seed", defaultValue = "42", description = "Seed for weights and input (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--precision", defaultValue = "F32",
            description = "Precision policy: F32, F16, BF16, AMP, AMP_BF16 (default: ${DEFAULT-VALUE}).")
    PrecisionPolicy precision;

    @Option(names = "--no-optimize", description = "Skip the optimising passes (fusion, folding, in-place).")
    boolean noOptimize;

    @Option(names = "--memory-report", description = "Print the decoder block's arena layout.")
    boolean memoryReport;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        Device d = Device.parse(device);
        try (Session s = new Session(d, CompileOptions.defaults().withPrecision(precision).withOptimize(!noOptimize))) {
            out.println("RLX demo on " + s.backendName());
            quickstart(s, out);
            decoderBlock(s, out);
        }
        return 0;
    }

    private static void quickstart(Session s, PrintStream out) {
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

    private void decoderBlock(Session s, PrintStream out) {
        LlamaBlock b = LlamaBlock.demo();
        out.printf(Locale.ROOT, "decoder block: llama-style, dim %d, %d query heads / %d kv heads of %d, ffn %d, batch %d x seq %d%n",
                b.dim(), b.heads(), b.kvHeads(), b.headDim(), b.ffn(), b.batch(), b.seq());
        Tick t0 = Tick.now();
        try (CompiledGraph c = s.compile(b.build())) {
            out.printf(Locale.ROOT, "  compiled in %.1f ms: %d kernels%n", Tick.now().elapsedMs(t0), c.kernelCount());
            out.printf(Locale.ROOT, "  arena: %s (no reuse: %s, %.1f%% saved); precision %s, optimise %s%n",
                    mib(c.arenaBytes()), mib(c.unsharedBytes()),
                    100.0 * (c.unsharedBytes() - c.arenaBytes()) / c.unsharedBytes(), precision, !noOptimize);
            long params = 0;
            for (String name : c.paramNames()) {
                params += c.paramShape(name).byteSize();
            }
            out.printf(Locale.ROOT, "  of which params %s, everything else (input, activations, output) %.1f KiB%n",
                    mib(params), (c.arenaBytes() - params) / 1024.0);
            if (memoryReport) {
                out.print(c.memoryReport());
            }
            for (Map.Entry<String, Tensor> e : b.randomWeights(seed).entrySet()) {
                c.setParam(e.getKey(), e.getValue());
            }
            c.setInput("x", b.randomInput(seed + 1));
            float[] y = new float[(int) c.output(0).size()];
            for (int i = 0; i < Math.max(20, runs); i++) { // warm-up: let the JIT compile the kernels
                c.run();
            }
            long[] ns = new long[Math.max(1, runs)];
            for (int i = 0; i < ns.length; i++) {
                Tick start = Tick.now();
                c.run();
                ns[i] = Tick.now().elapsedNs(start);
            }
            c.output(0).copyTo(y);
            double sum = 0;
            double abs = 0;
            for (float v : y) {
                sum += v;
                abs += Math.abs(v);
            }
            Arrays.sort(ns);
            out.printf(Locale.ROOT, "  output %s: checksum sum=%.6f mean|y|=%.6f%n", c.output(0).shape(), sum, abs / y.length);
            out.printf(Locale.ROOT, "  median time per run: %.3f ms over %d runs (min %.3f ms)%n", ns[ns.length / 2] / 1e6,
                    ns.length, ns[0] / 1e6);
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f MiB", bytes / (1024.0 * 1024.0));
    }
}
