package dev.rlx.bench;

import dev.rlx.ir.Tensor;
import dev.rlx.opt.PrecisionPolicy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The ONNX model corpus ({@code ./rlx-bench/run Models [NAME...] [threads=1,2] [rounds=5] [first=1]}) through RLX
 * and ONNX Runtime: per model, parity of every output with ONNX Runtime (an element passes within {@code 1e-4 + 1e-3
 * |ort|}; max abs diff, and max rel diff over the elements of magnitude 1e-4 or more), the F16 and AMP policies against RLX's F32 (max diff over the output's max
 * magnitude), the first run (load + import + compile + first run against ORT's session creation + first run, each
 * in a new JVM, alternating), and the steady state at each thread count with RLX and ORT alternated in one
 * process ({@link CpuSuitePaired#alternate}). Prints a table, writes {@code target/models.json}, {@code
 * target/models.md} and a chart of the 1-thread ratios {@code target/models.png}. Models come from {@code
 * rlx-bench/models/fetch}.
 */
final class ModelsBench {
    private ModelsBench() {}

    private static final String MARK = "FIRSTRUN ";
    /**
     * Tolerance of the F16 and AMP policies: max |policy - f32| over max |f32|, per output. Looser than the 2e-2 of
     * the generated models' test (HalfPrecisionModelsTest): the detector's output is over a hundred half roundings deep.
     */
    static final double HALF_TOLERANCE = 3e-2;

    record Parity(double maxAbs, double maxRel, boolean pass) {}

    record Result(CorpusModel model, int kernels, List<Parity> parity, double f16Err, double ampErr,
                  String f16Error, String ampError, double[] rlxFirst, double[] ortFirst, List<Integer> threads,
                  List<CpuSuitePaired.Paired> steady, String error) {}

    static void main(String[] args) throws Exception {
        List<String> names = new ArrayList<>();
        int[] threads = {1, 2};
        int rounds = 5;
        int first = 1;
        for (String a : args) {
            if (a.startsWith("threads=")) {
                threads = Arrays.stream(a.substring(8).split(",")).mapToInt(Integer::parseInt).toArray();
            } else if (a.startsWith("rounds=")) {
                rounds = Integer.parseInt(a.substring(7));
            } else if (a.startsWith("first=")) {
                first = Integer.parseInt(a.substring(6));
            } else {
                names.add(a);
            }
        }
        List<CorpusModel> corpus = CorpusModel.corpus().stream().filter(m -> names.isEmpty() || names.contains(m.name())).toList();
        List<Result> results = new ArrayList<>();
        for (CorpusModel m : corpus) {
            System.err.println("model " + m.name() + " (" + m.kind() + ")");
            Result r = measure(m, threads, rounds, first);
            results.add(r);
            System.out.println(line(r));
        }
        String md = table(results);
        System.out.println();
        System.out.print(md);
        Path dir = Path.of("target");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("models.md"), md);
        Files.writeString(dir.resolve("models.json"), json(results));
        List<CpuSuiteReport.Row> rows = new ArrayList<>();
        for (Result r : results) {
            for (int i = 0; i < r.steady().size(); i++) {
                CpuSuitePaired.Paired p = r.steady().get(i);
                // the chart draws peerMs / rlxMs: the paired median ratio, not the ratio of the medians
                rows.add(new CpuSuiteReport.Row(r.model().name(), r.threads().get(i), new CpuSuiteCase.Info(r.model().name(),
                        "", CpuSuiteCase.Unit.MS, 1, "onnxruntime"), p.rlxSeconds() * 1e3, p.rlxSeconds() * 1e3 * p.ratio()));
            }
        }
        if (!rows.isEmpty()) {
            CpuSuiteReport.writeChart(rows, "ONNX corpus vs ONNX Runtime 1.29, alternated in one process; "
                    + Runtime.getRuntime().availableProcessors() + " CPUs", dir.resolve("models.png"));
        }
        System.out.println("wrote " + dir.toAbsolutePath().resolve("models.{md,json,png}"));
    }

    private static Result measure(CorpusModel m, int[] threads, int rounds, int first) {
        try {
            Map<String, Tensor> in = m.makeInputs();
            double[] rf = new double[first];
            double[] of = new double[first];
            for (int k = 0; k < first; k++) {
                rf[k] = child(m, "rlx");
                of[k] = child(m, "ort");
            }
            List<Parity> parity = new ArrayList<>();
            int kernels;
            List<float[]> f32;
            try (RlxModel rlx = new RlxModel(m.file(), in, 1, PrecisionPolicy.F32); OrtModel ort = new OrtModel(m.file(), in, 1)) {
                f32 = rlx.outputs();
                List<float[]> ref = ort.outputs();
                for (int i = 0; i < ref.size(); i++) {
                    parity.add(parity(f32.get(i), ref.get(i)));
                }
                kernels = rlx.kernels();
            }
            double[] half = new double[2];
            String[] halfError = new String[2];
            PrecisionPolicy[] policies = {PrecisionPolicy.F16, PrecisionPolicy.AMP};
            for (int p = 0; p < 2; p++) {
                try (RlxModel h = new RlxModel(m.file(), in, 1, policies[p])) {
                    half[p] = halfError(h.outputs(), f32);
                } catch (RuntimeException e) {
                    half[p] = Double.NaN;
                    halfError[p] = e.toString();
                }
            }
            List<Integer> ts = new ArrayList<>();
            List<CpuSuitePaired.Paired> steady = new ArrayList<>();
            for (int t : threads) {
                try (RlxModel rlx = new RlxModel(m.file(), in, t, PrecisionPolicy.F32); OrtModel ort = new OrtModel(m.file(), in, t)) {
                    ts.add(t);
                    steady.add(CpuSuitePaired.alternate(rlx, ort, rounds));
                }
            }
            return new Result(m, kernels, parity, half[0], half[1], halfError[0], halfError[1], rf, of, ts, steady, null);
        } catch (Exception | LinkageError e) {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage();
            System.err.println(m.name() + ": " + msg);
            return new Result(m, 0, List.of(), Double.NaN, Double.NaN, null, null, new double[0], new double[0], List.of(),
                    List.of(), msg);
        }
    }

    static Parity parity(float[] rlx, float[] ort) {
        if (rlx.length != ort.length) {
            return new Parity(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, false);
        }
        double maxAbs = 0;
        double maxRel = 0;
        boolean pass = true;
        for (int i = 0; i < rlx.length; i++) {
            double d = Math.abs((double) rlx[i] - ort[i]);
            if (Double.isNaN(d) && !(Float.isNaN(rlx[i]) && Float.isNaN(ort[i]))) {
                d = Double.POSITIVE_INFINITY;
            } else if (Double.isNaN(d)) {
                d = 0;
            }
            maxAbs = Math.max(maxAbs, d);
            if (Math.abs(ort[i]) >= 1e-4) { // below, the abs bound alone decides: a rel diff of 1e-20 values says nothing
                maxRel = Math.max(maxRel, d / Math.abs(ort[i]));
            }
            pass &= d <= 1e-4 + 1e-3 * Math.abs(ort[i]);
        }
        return new Parity(maxAbs, maxRel, pass);
    }

    /** The worst output's max |a - f32| over its max |f32|. */
    static double halfError(List<float[]> a, List<float[]> f32) {
        double worst = 0;
        for (int o = 0; o < f32.size(); o++) {
            double scale = 0;
            double diff = 0;
            for (int i = 0; i < f32.get(o).length; i++) {
                scale = Math.max(scale, Math.abs(f32.get(o)[i]));
                double d = Math.abs((double) a.get(o)[i] - f32.get(o)[i]);
                diff = Math.max(diff, Double.isNaN(d) ? Double.POSITIVE_INFINITY : d);
            }
            worst = Math.max(worst, diff / Math.max(scale, 1e-30));
        }
        return worst;
    }

    /** One fresh JVM with this one's class path and flags; the first run's milliseconds inside it. */
    private static double child(CorpusModel m, String side) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.add("models-first");
        cmd.add(m.name());
        cmd.add(side);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Double ms = null;
        StringBuilder log = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(MARK)) {
                    String[] f = line.substring(MARK.length()).trim().split(" ");
                    ms = Double.parseDouble(f[0]);
                    System.err.println("  first run " + side + ": " + line.substring(MARK.length()));
                } else {
                    log.append(line).append('\n');
                }
            }
        }
        if (p.waitFor() != 0 || ms == null) {
            String why = log.toString().lines().filter(l -> l.startsWith("Exception") || l.contains("Exception:")).findFirst()
                    .orElse(log.toString().lines().reduce("", (a, b) -> b));
            throw new IllegalStateException("the first-run JVM of " + side + " failed (exit " + p.exitValue() + "): " + why);
        }
        return ms;
    }

    /** In the child JVM: one side's first run, timed from before the file is read to after the outputs are read. */
    static void childMain(String[] args) throws Exception {
        CorpusModel m = CorpusModel.corpus().stream().filter(c -> c.name().equals(args[0])).findFirst().orElseThrow();
        Map<String, Tensor> in = m.makeInputs();
        long t0 = System.nanoTime();
        if (args[1].equals("rlx")) {
            try (RlxModel r = new RlxModel(m.file(), in, 1, PrecisionPolicy.F32)) {
                double total = (System.nanoTime() - t0) / 1e6;
                System.out.printf(Locale.ROOT, "%s%.1f load %.1f import %.1f compile %.1f run %.1f%n", MARK, total,
                        r.loadMs, r.importMs, r.compileMs, r.firstRunMs);
            }
        } else {
            try (OrtModel o = new OrtModel(m.file(), in, 1)) {
                double session = (System.nanoTime() - t0) / 1e6;
                o.outputs();
                double total = (System.nanoTime() - t0) / 1e6;
                System.out.printf(Locale.ROOT, "%s%.1f session %.1f run %.1f%n", MARK, total, session, total - session);
            }
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length == 0 ? Double.NaN : s[s.length / 2];
    }

    private static String line(Result r) {
        return r.error() != null ? r.model().name() + ": ERROR " + r.error() : r.model().name() + ": " + row(r);
    }

    private static String row(Result r) {
        StringBuilder sb = new StringBuilder();
        double maxAbs = r.parity().stream().mapToDouble(Parity::maxAbs).max().orElse(Double.NaN);
        double maxRel = r.parity().stream().mapToDouble(Parity::maxRel).max().orElse(Double.NaN);
        boolean pass = r.parity().stream().allMatch(Parity::pass);
        sb.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %.2g | %.2g | %s | %s | %.0f | %.0f | %.2f |",
                r.model().name(), r.model().kind(), r.kernels(), pass ? "yes" : "NO", maxAbs, maxRel,
                half(r.f16Err(), r.f16Error()), half(r.ampErr(), r.ampError()), median(r.rlxFirst()), median(r.ortFirst()),
                median(r.rlxFirst()) / median(r.ortFirst())));
        for (int i = 0; i < r.steady().size(); i++) {
            CpuSuitePaired.Paired p = r.steady().get(i);
            sb.append(String.format(Locale.ROOT, " %.3g / %.3g | %.2f (%.2f-%.2f) |", p.rlxSeconds() * 1e3,
                    p.peerSeconds() * 1e3, p.ratio(), p.q1(), p.q3()));
        }
        return sb.toString();
    }

    private static String half(double err, String error) {
        return error != null ? "fails" : String.format(Locale.ROOT, "%.1e%s", err, err <= HALF_TOLERANCE ? "" : " (over)");
    }

    static String table(List<Result> results) {
        StringBuilder sb = new StringBuilder("| model | kind | kernels | parity | max abs | max rel | F16 err | AMP err "
                + "| first run RLX ms | first run ORT ms | RLX/ORT |");
        List<Integer> ts = results.stream().filter(r -> !r.threads().isEmpty()).findFirst().map(Result::threads).orElse(List.of());
        StringBuilder rule = new StringBuilder("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (int t : ts) {
            sb.append(" ").append(t).append("t ms RLX / ORT | ").append(t).append("t ORT/RLX (q1-q3) |");
            rule.append(" ---: | ---: |");
        }
        sb.append('\n').append(rule).append('\n');
        double[] logSum = new double[ts.size()];
        int[] n = new int[ts.size()];
        for (Result r : results) {
            sb.append(r.error() != null ? "| " + r.model().name() + " | " + r.model().kind() + " | ERROR: " + r.error() + " |" : row(r))
                    .append('\n');
            for (int i = 0; i < r.steady().size() && i < ts.size(); i++) {
                logSum[i] += Math.log(r.steady().get(i).ratio());
                n[i]++;
            }
        }
        for (int i = 0; i < ts.size(); i++) {
            sb.append(String.format(Locale.ROOT, "%ngeometric mean ORT/RLX at %d thread(s): %.2f over %d models", ts.get(i),
                    Math.exp(logSum[i] / Math.max(1, n[i])), n[i]));
        }
        return sb.append('\n').toString();
    }

    private static String json(List<Result> results) {
        StringBuilder sb = new StringBuilder("[\n");
        for (int k = 0; k < results.size(); k++) {
            Result r = results.get(k);
            sb.append(String.format(Locale.ROOT, "  {\"model\": \"%s\", \"package\": \"%s@%s\", \"file\": \"%s\", \"kind\": \"%s\"",
                    r.model().name(), r.model().pkg(), r.model().version(), r.model().path(), r.model().kind()));
            if (r.error() != null) {
                sb.append(", \"error\": \"").append(r.error().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " "))
                        .append("\"}");
            } else {
                sb.append(String.format(Locale.ROOT, ", \"kernels\": %d, \"outputs\": [", r.kernels()));
                for (int i = 0; i < r.parity().size(); i++) {
                    Parity p = r.parity().get(i);
                    sb.append(String.format(Locale.ROOT, "%s{\"maxAbs\": %s, \"maxRel\": %s, \"pass\": %b}", i == 0 ? "" : ", ",
                            num(p.maxAbs()), num(p.maxRel()), p.pass()));
                }
                sb.append(String.format(Locale.ROOT, "], \"f16Err\": %s, \"ampErr\": %s, \"firstRunMs\": {\"rlx\": %s, \"ort\": %s}, "
                        + "\"steady\": [", num(r.f16Err()), num(r.ampErr()), Arrays.toString(r.rlxFirst()),
                        Arrays.toString(r.ortFirst())));
                for (int i = 0; i < r.steady().size(); i++) {
                    CpuSuitePaired.Paired p = r.steady().get(i);
                    sb.append(String.format(Locale.ROOT, "%s{\"threads\": %d, \"rlxMs\": %s, \"ortMs\": %s, \"ratio\": %s, "
                            + "\"q1\": %s, \"q3\": %s}", i == 0 ? "" : ", ", r.threads().get(i), num(p.rlxSeconds() * 1e3),
                            num(p.peerSeconds() * 1e3), num(p.ratio()), num(p.q1()), num(p.q3())));
                }
                sb.append("]}");
            }
            sb.append(k + 1 < results.size() ? ",\n" : "\n");
        }
        return sb.append("]\n").toString();
    }

    private static String num(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.6g", v) : "null";
    }
}
