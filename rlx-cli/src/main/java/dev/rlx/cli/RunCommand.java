package dev.rlx.cli;

import dev.rlx.ir.RlxException;
import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.onnx.OnnxValueInfo;
import dev.rlx.runtime.CompileOptions;
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
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rlx run model.onnx --input name=file.npy ...}: imports an ONNX model for the given input shapes,
 * compiles it, runs it, and prints the first run's time (import and compile included), the time per run at the
 * steady state (see {@link SteadyState}), and each output's shape and a summary of its values.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run an ONNX model on .npy inputs: the first run's time, the steady-state time per run, and each "
                + "output's shape and a summary of its values.")
final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "MODEL", description = "The .onnx file.")
    Path model;

    @Option(names = {"-i", "--input"}, paramLabel = "NAME=FILE.npy",
            description = "A model input and the .npy file holding it (repeat for each input).")
    List<String> inputs = new ArrayList<>();

    @Option(names = "--runs", defaultValue = "10", paramLabel = "N",
            description = "Timed runs at the steady state (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--warmup", paramLabel = "N", description = "Warm-up runs before the timed ones (default: until the"
            + " median time per run of a round of runs has changed by under 5% for two rounds running, at most 15 s).")
    Integer warmup;

    @Option(names = "--save", paramLabel = "DIR", description = "Write each output to DIR/<output name>.npy.")
    Path save;

    @Mixin
    SessionOptions sessionOptions;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        OptionChecks.atLeast(spec, "--runs", runs, 1);
        if (warmup != null) {
            OptionChecks.atLeast(spec, "--warmup", warmup, 0);
        }
        InputFileException.requireFile(model, "MODEL");
        OnnxModel m;
        try {
            m = OnnxModel.load(model);
        } catch (RlxException e) {
            throw InputFileException.reading(model, "MODEL", e);
        }
        Map<String, Tensor> feed = readInputs(m);
        try (Session s = sessionOptions.openFor(() -> m.importGraph(OnnxBinding.of(feed)).graph(), CompileOptions.defaults());
                OnnxRunner r = new OnnxRunner(m, s);
                Progress progress = Progress.onTerminal(err)) {
            progress.show("rlx run: importing, compiling and running " + model.getFileName());
            Tick t0 = Tick.now();
            r.run(feed);
            double firstMs = Tick.now().elapsedMs(t0);
            SteadyState.Result steady = new SteadyState(progress).measure(() -> r.run(feed), warmup, runs);
            Map<String, Tensor> result = r.run(feed);
            progress.clear();
            out.printf(Locale.ROOT, "%s on %s%n", model.getFileName(), sessionOptions.describe(s));
            out.printf(Locale.ROOT, "  first run (import, compile, run): %.1f ms%n", firstMs);
            out.printf(Locale.ROOT, "  steady state: %s%n", steady.summary());
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
                    err.println("wrote " + f);
                }
            }
        }
        out.flush();
        return 0;
    }

    /** The {@code --input} files by input name, checked against the model's inputs (a usage error if they do not match). */
    private Map<String, Tensor> readInputs(OnnxModel m) {
        List<String> names = m.inputs().stream().map(OnnxValueInfo::name).toList();
        Map<String, Path> files = new LinkedHashMap<>();
        for (String spec : inputs) {
            int eq = spec.indexOf('=');
            if (eq <= 0 || eq == spec.length() - 1) {
                throw usage("--input takes NAME=FILE.npy, not '" + spec + "'");
            }
            String name = spec.substring(0, eq);
            if (!names.contains(name)) {
                throw usage("the model has no input '" + name + "'; its inputs are " + describe(m));
            }
            if (files.put(name, Path.of(spec.substring(eq + 1))) != null) {
                throw usage("input '" + name + "' is given twice");
            }
        }
        List<String> missing = names.stream().filter(n -> !files.containsKey(n)).toList();
        if (!missing.isEmpty()) {
            throw usage("no --input for " + missing + "; the model's inputs are " + describe(m));
        }
        Map<String, Tensor> feed = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : files.entrySet()) {
            InputFileException.requireFile(e.getValue(), "--input " + e.getKey());
            feed.put(e.getKey(), Npy.read(e.getValue())); // its errors name the file already
        }
        return feed;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
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
