package dev.rlx.onnx.conformance;

import dev.rlx.ir.DType;
import dev.rlx.ir.RlxException;
import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.onnx.OnnxTensorFile;
import dev.rlx.onnx.OnnxUnsupportedException;
import dev.rlx.onnx.OnnxValueInfo;
import dev.rlx.runtime.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the ONNX backend test suites ({@code data/<suite>/<case>/model.onnx} with
 * {@code test_data_set_N/input_*.pb} and {@code output_*.pb}, as Debian's {@code libonnx-testdata} installs
 * them) on one session, and compares every output with ONNX's tolerance: {@code |actual - expected| <=
 * atol + rtol * |expected|} with {@code rtol = 1e-3}, {@code atol = 1e-7} (integers and booleans exactly,
 * NaN equal to NaN). Each case runs under a time limit in one JVM.
 */
public final class ConformanceRunner {
    /** Where Debian installs the suites. */
    public static final Path DEFAULT_DATA = Path.of("/usr/share/libonnx-testdata/data");
    /** The suites, in report order. */
    public static final List<String> SUITES = List.of("node", "pytorch-converted", "pytorch-operator", "simple");

    static final double RTOL = 1e-3;
    static final double ATOL = 1e-7;

    /** Op types whose cases are out of scope, with the reason. */
    private static final Map<String, String> OUT_OF_SCOPE_OPS = outOfScopeOps();

    private final Path data;
    private final Session session;
    private final Duration limit;
    private ExecutorService worker = newWorker();

    public ConformanceRunner(Path data, Session session, Duration perCaseLimit) {
        this.data = data;
        this.session = session;
        this.limit = perCaseLimit;
    }

    /** The data folder: {@code RLX_ONNX_TESTDATA} if set, else {@link #DEFAULT_DATA}. */
    public static Path dataFolder() {
        String env = System.getProperty("RLX_ONNX_TESTDATA", System.getenv("RLX_ONNX_TESTDATA"));
        return env == null || env.isBlank() ? DEFAULT_DATA : Path.of(env);
    }

    /** Every case of {@code suite}, in name order. */
    public List<CaseResult> runSuite(String suite) {
        Path dir = data.resolve(suite);
        List<CaseResult> out = new ArrayList<>();
        List<Path> cases;
        try (var s = Files.list(dir)) {
            cases = s.filter(p -> Files.isRegularFile(p.resolve("model.onnx"))).sorted().toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list the suite folder " + dir + ": " + e.getMessage(), e);
        }
        for (Path c : cases) {
            out.add(runCase(suite, c));
        }
        return out;
    }

    /** One case, under the time limit. */
    public CaseResult runCase(String suite, Path dir) {
        String name = dir.getFileName().toString();
        long t0 = System.nanoTime();
        Future<CaseResult> f = worker.submit(() -> evaluate(suite, name, dir));
        try {
            return f.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            worker.shutdownNow(); // the stuck case keeps its thread; later cases get a fresh one
            worker = newWorker();
            return new CaseResult(suite, name, CaseResult.Status.ERROR, "timed out after " + limit.toMillis() + " ms",
                    Double.NaN, ms(t0));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CaseResult(suite, name, CaseResult.Status.ERROR, "interrupted", Double.NaN, ms(t0));
        } catch (ExecutionException e) {
            return new CaseResult(suite, name, CaseResult.Status.ERROR, describe(e.getCause()), Double.NaN, ms(t0));
        }
    }

    private static ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(null, r, "onnx-conformance", 64L << 20);
            t.setDaemon(true);
            return t;
        });
    }

    private CaseResult evaluate(String suite, String name, Path dir) {
        long t0 = System.nanoTime();
        OnnxModel model;
        try {
            model = OnnxModel.load(dir.resolve("model.onnx"));
        } catch (RlxException e) {
            return new CaseResult(suite, name, CaseResult.Status.ERROR, describe(e), Double.NaN, ms(t0));
        }
        String scope = outOfScope(model);
        if (scope != null) {
            return new CaseResult(suite, name, CaseResult.Status.OUT_OF_SCOPE, scope, Double.NaN, ms(t0));
        }
        double worst = 0;
        try (OnnxRunner runner = new OnnxRunner(model, session)) {
            List<Path> sets = dataSets(dir);
            if (sets.isEmpty()) {
                return new CaseResult(suite, name, CaseResult.Status.ERROR, "no test_data_set folder", Double.NaN, ms(t0));
            }
            for (Path set : sets) {
                Map<String, Tensor> inputs = inputs(model, set);
                Map<String, Tensor> actual = runner.run(inputs);
                List<Tensor> expected = files(set, "output_").stream().map(OnnxTensorFile::read).toList();
                if (expected.size() != actual.size()) {
                    return new CaseResult(suite, name, CaseResult.Status.FAIL, "model gives " + actual.size()
                            + " outputs but the data has " + expected.size(), Double.NaN, ms(t0));
                }
                int i = 0;
                for (var e : actual.entrySet()) {
                    Comparison cmp = Comparison.of(e.getValue(), expected.get(i++), RTOL, ATOL);
                    worst = Math.max(worst, cmp.maxError());
                    if (!cmp.ok()) {
                        return new CaseResult(suite, name, CaseResult.Status.FAIL, "output '" + e.getKey() + "' ("
                                + set.getFileName() + "): " + cmp.detail(), cmp.maxError(), ms(t0));
                    }
                }
            }
        } catch (OnnxUnsupportedException e) {
            String reason = outOfScopeFeature(e.feature());
            return new CaseResult(suite, name, reason != null ? CaseResult.Status.OUT_OF_SCOPE
                    : CaseResult.Status.UNSUPPORTED, reason != null ? reason : e.feature(), Double.NaN, ms(t0));
        } catch (RlxException | OutOfMemoryError | StackOverflowError e) {
            return new CaseResult(suite, name, CaseResult.Status.ERROR, describe(e), Double.NaN, ms(t0));
        } catch (RuntimeException e) {
            return new CaseResult(suite, name, CaseResult.Status.ERROR, describe(e), Double.NaN, ms(t0));
        }
        return new CaseResult(suite, name, CaseResult.Status.PASS, "", worst, ms(t0));
    }

    /** Test inputs by the model's input names, in declaration order. */
    private static Map<String, Tensor> inputs(OnnxModel model, Path set) {
        List<Path> files = files(set, "input_");
        List<OnnxValueInfo> declared = model.inputs();
        if (files.size() > declared.size()) {
            throw new IllegalStateException(set + " has " + files.size() + " inputs but the model declares "
                    + declared.size());
        }
        Map<String, Tensor> in = new LinkedHashMap<>();
        for (int i = 0; i < files.size(); i++) {
            in.put(declared.get(i).name(), OnnxTensorFile.read(files.get(i)));
        }
        return in;
    }

    private static List<Path> dataSets(Path dir) {
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("test_data_set_") && Files.isDirectory(p))
                    .sorted().toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + dir, e);
        }
    }

    /** {@code prefix0.pb, prefix1.pb, ...} in numeric order. */
    private static List<Path> files(Path set, String prefix) {
        List<Path> out = new ArrayList<>();
        for (int i = 0; Files.exists(set.resolve(prefix + i + ".pb")); i++) {
            out.add(set.resolve(prefix + i + ".pb"));
        }
        return out;
    }

    private static String outOfScope(OnnxModel model) {
        for (String op : model.opTypes()) {
            String why = OUT_OF_SCOPE_OPS.get(op);
            if (why == null && op.startsWith("ai.onnx.preview.training:")) {
                why = "training op (" + op + ")";
            }
            if (why != null) {
                return why;
            }
        }
        for (OnnxValueInfo v : model.inputs()) {
            String why = outOfScopeType(v);
            if (why != null) {
                return why;
            }
        }
        for (OnnxValueInfo v : model.outputs()) {
            String why = outOfScopeType(v);
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    private static String outOfScopeType(OnnxValueInfo v) {
        return switch (v.elementType()) {
            case "STRING" -> "string tensors";
            case "sequence", "map", "optional" -> v.elementType() + " values";
            default -> null;
        };
    }

    /** The out-of-scope reason for an unsupported feature found while importing, or null. */
    private static String outOfScopeFeature(String feature) {
        if (feature.equals("dtype STRING")) {
            return "string tensors";
        }
        if (feature.contains("training_mode")) {
            return "training mode (" + feature + ")";
        }
        if (feature.startsWith("sequence") || feature.startsWith("map") || feature.startsWith("optional")) {
            return feature;
        }
        return null;
    }

    private static Map<String, String> outOfScopeOps() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String op : Set.of("StringNormalizer", "TfIdfVectorizer", "RegexFullMatch", "StringConcat", "StringSplit")) {
            m.put(op, "string op (" + op + ")");
        }
        for (String op : Set.of("SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert",
                "SequenceLength", "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional",
                "OptionalGetElement", "OptionalHasElement")) {
            m.put(op, "sequence/optional op (" + op + ")");
        }
        return m;
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        String s = e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        s = s.replace('\n', ' ');
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** Element-wise comparison of one output. */
    record Comparison(boolean ok, double maxError, String detail) {
        static Comparison of(Tensor actual, Tensor expected, double rtol, double atol) {
            if (!actual.shape().sameDims(expected.shape())) {
                return new Comparison(false, Double.NaN, "shape " + actual.shape() + " but expected " + expected.shape());
            }
            if (actual.dtype() != expected.dtype()) {
                return new Comparison(false, Double.NaN, "dtype " + actual.dtype().label() + " but expected "
                        + expected.dtype().label());
            }
            DType t = actual.dtype();
            long n = actual.shape().elementCount();
            double worst = 0;
            long bad = -1;
            boolean exact = !t.isFloat() && !t.isComplex();
            long[] al = exact && t == DType.I64 ? longs(actual) : null;
            long[] el = exact && t == DType.I64 ? longs(expected) : null;
            for (long i = 0; i < n; i++) {
                double a = actual.getDouble(i);
                double e = expected.getDouble(i);
                boolean same;
                if (al != null) {
                    same = al[(int) i] == el[(int) i];
                    a = al[(int) i];
                    e = el[(int) i];
                } else if (exact) {
                    same = a == e;
                } else if (Double.isNaN(e) || Double.isNaN(a)) {
                    same = Double.isNaN(e) && Double.isNaN(a);
                } else if (Double.isInfinite(e) || Double.isInfinite(a)) {
                    same = a == e;
                } else {
                    same = Math.abs(a - e) <= atol + rtol * Math.abs(e);
                }
                double err = Double.isFinite(a - e) ? Math.abs(a - e) : (same ? 0 : Double.POSITIVE_INFINITY);
                worst = Math.max(worst, err);
                if (!same && bad < 0) {
                    bad = i;
                }
            }
            if (bad >= 0) {
                return new Comparison(false, worst, "element " + bad + " is " + actual.getDouble(bad) + " but expected "
                        + expected.getDouble(bad) + " (max error " + worst + ")");
            }
            return new Comparison(true, worst, "");
        }

        private static long[] longs(Tensor t) {
            var b = t.buffer();
            long[] out = new long[Math.toIntExact(t.shape().elementCount())];
            for (int i = 0; i < out.length; i++) {
                out[i] = b.getLong(i * 8);
            }
            return out;
        }
    }
}
