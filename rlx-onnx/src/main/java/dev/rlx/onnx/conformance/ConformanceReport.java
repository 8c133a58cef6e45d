package dev.rlx.onnx.conformance;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The results of a conformance run: per-suite totals, the summary table, and the report files
 * ({@code onnx-conformance.md} listing every case, {@code onnx-conformance.json} for tools).
 */
public final class ConformanceReport {
    private final Map<String, List<CaseResult>> suites;

    /** {@code suites}: suite name to its cases, in report order. */
    public ConformanceReport(Map<String, List<CaseResult>> suites) {
        this.suites = new LinkedHashMap<>(suites);
    }

    /** Totals of one suite. */
    public record Totals(int pass, int fail, int unsupported, int error, int outOfScope) {
        public int inScope() {
            return pass + fail + unsupported + error;
        }

        /** Passing share of the in-scope cases, in percent. */
        public double passPercent() {
            return inScope() == 0 ? 100 : 100.0 * pass / inScope();
        }
    }

    public Totals totals(String suite) {
        Map<CaseResult.Status, Integer> n = new EnumMap<>(CaseResult.Status.class);
        for (CaseResult r : suites.getOrDefault(suite, List.of())) {
            n.merge(r.status(), 1, Integer::sum);
        }
        return new Totals(n.getOrDefault(CaseResult.Status.PASS, 0), n.getOrDefault(CaseResult.Status.FAIL, 0),
                n.getOrDefault(CaseResult.Status.UNSUPPORTED, 0), n.getOrDefault(CaseResult.Status.ERROR, 0),
                n.getOrDefault(CaseResult.Status.OUT_OF_SCOPE, 0));
    }

    public Map<String, List<CaseResult>> suites() {
        return suites;
    }

    /** The summary table (markdown), one row per suite. */
    public String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append("| suite | cases | pass | fail | unsupported | error | out of scope | pass (in scope) |\n");
        sb.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (String s : suites.keySet()) {
            Totals t = totals(s);
            sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %.1f%% |%n", s,
                    t.inScope() + t.outOfScope(), t.pass(), t.fail(), t.unsupported(), t.error(), t.outOfScope(),
                    t.passPercent()));
        }
        return sb.toString();
    }

    /** Writes {@code onnx-conformance.md} and {@code onnx-conformance.json} into {@code dir}. */
    public void write(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("onnx-conformance.md"), markdown());
            Files.writeString(dir.resolve("onnx-conformance.json"), json());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the conformance report to " + dir, e);
        }
    }

    String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# ONNX backend conformance\n\n");
        sb.append("The ONNX backend test data (Debian's `libonnx-testdata`, ONNX 1.12) run on RLX's CPU backend by\n");
        sb.append("`./rlx onnx-conformance --report docs` (or `OnnxConformanceTest`). Outputs are compared with ONNX's\n");
        sb.append("tolerance, `|actual - expected| <= 1e-7 + 1e-3 * |expected|`; integers and booleans exactly.\n\n");
        sb.append(summary()).append('\n');
        sb.append("Out of scope (not counted): string tensors and string ops, sequence/map/optional values, training ops\n");
        sb.append("(`ai.onnx.preview.training`, training-mode Dropout and BatchNormalization).\n\n");
        sb.append("## Not passing, by cause\n\n");
        Map<String, List<String>> causes = new TreeMap<>();
        for (var e : suites.entrySet()) {
            for (CaseResult r : e.getValue()) {
                if (r.status() == CaseResult.Status.PASS || r.status() == CaseResult.Status.OUT_OF_SCOPE) {
                    continue;
                }
                String cause = switch (r.status()) {
                    case UNSUPPORTED -> "unsupported: " + r.detail();
                    case FAIL -> "wrong result";
                    default -> "error";
                };
                causes.computeIfAbsent(cause, k -> new java.util.ArrayList<>()).add(e.getKey() + "/" + r.name());
            }
        }
        sb.append("| cause | cases | which |\n| --- | ---: | --- |\n");
        for (var e : causes.entrySet()) {
            sb.append("| ").append(e.getKey()).append(" | ").append(e.getValue().size()).append(" | ")
                    .append(String.join(", ", e.getValue())).append(" |\n");
        }
        for (var e : suites.entrySet()) {
            sb.append("\n## ").append(e.getKey()).append("\n\n| case | status | detail |\n| --- | --- | --- |\n");
            for (CaseResult r : e.getValue()) {
                String detail = r.status() == CaseResult.Status.PASS
                        ? String.format(Locale.ROOT, "max error %.3g", r.maxError()) : r.detail();
                sb.append("| ").append(r.name()).append(" | ").append(r.status().name().toLowerCase(Locale.ROOT))
                        .append(" | ").append(detail.replace("|", "\\|")).append(" |\n");
            }
        }
        return sb.toString();
    }

    String json() {
        StringWriter w = new StringWriter();
        try (JsonGenerator j = new JsonFactory().createGenerator(w)) {
            j.useDefaultPrettyPrinter();
            j.writeStartObject();
            j.writeNumberField("rtol", ConformanceRunner.RTOL);
            j.writeNumberField("atol", ConformanceRunner.ATOL);
            j.writeObjectFieldStart("totals");
            for (String s : suites.keySet()) {
                Totals t = totals(s);
                j.writeObjectFieldStart(s);
                j.writeNumberField("pass", t.pass());
                j.writeNumberField("fail", t.fail());
                j.writeNumberField("unsupported", t.unsupported());
                j.writeNumberField("error", t.error());
                j.writeNumberField("outOfScope", t.outOfScope());
                j.writeNumberField("passPercentInScope", Math.round(t.passPercent() * 10) / 10.0);
                j.writeEndObject();
            }
            j.writeEndObject();
            j.writeArrayFieldStart("cases");
            for (var e : suites.entrySet()) {
                for (CaseResult r : e.getValue()) {
                    j.writeStartObject();
                    j.writeStringField("suite", r.suite());
                    j.writeStringField("name", r.name());
                    j.writeStringField("status", r.status().name().toLowerCase(Locale.ROOT));
                    j.writeStringField("detail", r.detail());
                    if (Double.isFinite(r.maxError())) {
                        j.writeNumberField("maxError", r.maxError());
                    }
                    j.writeEndObject();
                }
            }
            j.writeEndArray();
            j.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w + "\n";
    }
}
