package dev.rlx.cli;

import dev.rlx.ir.RlxException;
import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.onnx.OnnxValueInfo;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.Tick;
import dev.rlx.runtime.weights.Npy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rlx run model.onnx --input name=file.npy ...}: imports an ONNX model for the given input shapes,
 * compiles it, runs it, and prints each output's shape and a summary of its values and the time per run.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run an ONNX model on .npy inputs: output shapes, value summaries and time per run.")
final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "MODEL", description = "The .onnx file.")
    Path model;

    @Option(names = {"-i", "--input"}, paramLabel = "NAME=FILE.npy",
            description = "A model input and the .npy file holding it (repeat for each input).")
    List<String> inputs = new ArrayList<>();

    @Option(names = "--runs", defaultValue = "10", description = "Timed runs after the first (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--save", paramLabel = "DIR", description = "Write each output to DIR/<output name>.npy.")
    Path save;

    @Mixin
    SessionOptions sessionOptions;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (runs < 1) {
            err.println("rlx run: --runs must be at least 1 but is " + runs);
            return 2;
        }
        try {
            OnnxModel m = OnnxModel.load(model);
            Map<String, Tensor> feed = readInputs(m);
            try (Session s = sessionOptions.open(); OnnxRunner r = new OnnxRunner(m, s)) {
                Tick t0 = Tick.now();
                Map<String, Tensor> result = r.run(feed);
                double firstMs = Tick.now().elapsedMs(t0);
                Tick t1 = Tick.now();
                for (int i = 0; i < runs; i++) {
                    result = r.run(feed);
                }
                double perRunMs = Tick.now().elapsedMs(t1) / runs;
                out.printf(Locale.ROOT, "%s on %s: first run (import, compile, run) %.1f ms, then %.3f ms per run "
                        + "(mean of %d)%n", model.getFileName(), s.backendName(), firstMs, perRunMs, runs);
                TextTable t = new TextTable("output", "shape", "min", "max", "mean", "std", "first values");
                for (Map.Entry<String, Tensor> e : result.entrySet()) {
                    t.row(summary(e.getKey(), e.getValue()));
                }
                t.print(out);
                if (save != null) {
                    Files.createDirectories(save);
                    for (Map.Entry<String, Tensor> e : result.entrySet()) {
                        Path f = save.resolve(fileName(e.getKey()) + ".npy");
                        Npy.write(f, e.getValue());
                        out.println("wrote " + f);
                    }
                }
            }
        } catch (RlxException | IllegalArgumentException e) {
            err.println("rlx run: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("rlx run: cannot write outputs: " + e.getMessage());
            return 1;
        }
        out.flush();
        return 0;
    }

    /** The {@code --input} files by input name, checked against the model's inputs. */
    private Map<String, Tensor> readInputs(OnnxModel m) {
        List<String> names = m.inputs().stream().map(OnnxValueInfo::name).toList();
        Map<String, Tensor> feed = new LinkedHashMap<>();
        for (String spec : inputs) {
            int eq = spec.indexOf('=');
            if (eq <= 0 || eq == spec.length() - 1) {
                throw new IllegalArgumentException("--input takes NAME=FILE.npy, not '" + spec + "'");
            }
            String name = spec.substring(0, eq);
            if (!names.contains(name)) {
                throw new IllegalArgumentException("the model has no input '" + name + "'; its inputs are " + describe(m));
            }
            if (feed.put(name, Npy.read(Path.of(spec.substring(eq + 1)))) != null) {
                throw new IllegalArgumentException("input '" + name + "' is given twice");
            }
        }
        List<String> missing = names.stream().filter(n -> !feed.containsKey(n)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("no --input for " + missing + "; the model's inputs are " + describe(m));
        }
        return feed;
    }

    private static String describe(OnnxModel m) {
        return m.inputs().stream().map(v -> v.name() + " " + v.elementType() + v.dims()).toList().toString();
    }

    /** One table row: name, shape, min, max, mean, standard deviation (over finite values) and the first few values. */
    static String[] summary(String name, Tensor t) {
        long n = t.shape().elementCount();
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double sumSq = 0;
        long finite = 0;
        for (long i = 0; i < n; i++) {
            double v = t.getDouble(i);
            if (Double.isFinite(v)) {
                min = Math.min(min, v);
                max = Math.max(max, v);
                sum += v;
                sumSq += v * v;
                finite++;
            }
        }
        double mean = finite == 0 ? Double.NaN : sum / finite;
        double std = finite == 0 ? Double.NaN : Math.sqrt(Math.max(0, sumSq / finite - mean * mean));
        StringBuilder first = new StringBuilder();
        for (long i = 0; i < Math.min(n, 4); i++) {
            first.append(i == 0 ? "" : " ").append(fmt(t.getDouble(i)));
        }
        if (n > 4) {
            first.append(" ...");
        }
        String shape = t.dtype().name().toLowerCase(Locale.ROOT) + Arrays.toString(t.shape().dims());
        String note = finite < n ? " (" + (n - finite) + " not finite)" : "";
        return new String[] {name, shape, fmt(min), fmt(max), fmt(mean), fmt(std) + note, first.toString()};
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.5g", v);
    }

    /** An output name made safe as a file name. */
    private static String fileName(String output) {
        String f = output.replaceAll("[^A-Za-z0-9._-]", "_");
        return f.isEmpty() || f.startsWith(".") ? "output_" + f : f;
    }
}
