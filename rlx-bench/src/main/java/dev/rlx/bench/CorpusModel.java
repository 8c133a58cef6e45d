package dev.rlx.bench;

import dev.rlx.ir.Tensor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One model of the ONNX corpus ({@code rlx-bench/models/corpus.tsv}): where {@code rlx-bench/models/fetch} put
 * it, and its inputs, generated from a fixed seed with the shapes and value ranges the model sees in use (an
 * image normalised to [-1, 1], 16 kHz audio, a sample rate). The same inputs on every run and in every process.
 *
 * @param name short name ({@code ocr-det})
 * @param pkg the npm package that ships the model
 * @param version its pinned version
 * @param path the file's path inside the package
 * @param kind what the model is, for the table
 * @param inputs input specs: {@code name=dtype:dims:distribution}
 */
record CorpusModel(String name, String pkg, String version, String path, String kind, List<String> inputs) {
    /** Where {@code fetch} caches the models: {@code RLX_MODEL_CACHE}, default {@code ~/.cache/rlx/models}. */
    static Path cache() {
        String env = System.getenv("RLX_MODEL_CACHE");
        return env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "rlx", "models");
    }

    /** The corpus list, found from the repository root or the {@code rlx-bench} folder. */
    static List<CorpusModel> corpus() {
        Path f = null;
        for (String c : new String[] {"rlx-bench/models/corpus.tsv", "models/corpus.tsv", "../rlx-bench/models/corpus.tsv"}) {
            if (Files.isRegularFile(Path.of(c))) {
                f = Path.of(c);
                break;
            }
        }
        if (f == null) {
            throw new IllegalStateException("rlx-bench/models/corpus.tsv not found from " + Path.of("").toAbsolutePath());
        }
        try {
            List<CorpusModel> out = new ArrayList<>();
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] p = line.split("\t");
                out.add(new CorpusModel(p[0], p[1], p[2], p[3], p[4], List.of(p[5].trim().split(" +"))));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The model file; fails naming the fetch script when it is not there. */
    Path file() {
        Path p = cache().resolve(pkg.replace('/', '_') + "-" + version).resolve("package").resolve(path);
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException(name + ": " + p + " is missing; run rlx-bench/models/fetch first");
        }
        return p;
    }

    /** The inputs, in the order of the spec, from a seed derived from the model's name. */
    Map<String, Tensor> makeInputs() {
        Random r = new Random(name.hashCode() * 31L + 7);
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (String spec : inputs) {
            int eq = spec.lastIndexOf('=');
            String[] p = spec.substring(eq + 1).split(":");
            int[] dims = p[1].equals("scalar") ? new int[0] : java.util.Arrays.stream(p[1].split("x")).mapToInt(Integer::parseInt).toArray();
            int n = 1;
            for (int d : dims) {
                n *= d;
            }
            String dist = p[2];
            double[] args = java.util.Arrays.stream(dist.substring(dist.indexOf('(') + 1, dist.length() - 1).split(","))
                    .mapToDouble(Double::parseDouble).toArray();
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = switch (dist.substring(0, dist.indexOf('('))) {
                    case "normal" -> r.nextGaussian() * args[0];
                    case "uniform" -> args[0] + (args[1] - args[0]) * r.nextDouble();
                    case "value" -> args[0];
                    default -> throw new IllegalArgumentException(name + ": unknown distribution " + dist);
                };
            }
            String input = spec.substring(0, eq);
            out.put(input, switch (p[0]) {
                case "f32" -> {
                    float[] f = new float[n];
                    for (int i = 0; i < n; i++) {
                        f[i] = (float) v[i];
                    }
                    yield Tensor.of(f, dims);
                }
                case "i64" -> {
                    long[] l = new long[n];
                    for (int i = 0; i < n; i++) {
                        l[i] = Math.round(v[i]);
                    }
                    yield Tensor.of(l, dims);
                }
                default -> throw new IllegalArgumentException(name + ": unknown dtype " + p[0]);
            });
        }
        return out;
    }
}
