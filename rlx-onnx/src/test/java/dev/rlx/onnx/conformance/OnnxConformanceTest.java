package dev.rlx.onnx.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ONNX backend test suites as a standing test: every case of every installed suite runs on the CPU
 * backend, the report goes to {@code target/onnx-conformance/}, and the build fails when a suite passes
 * fewer cases than {@code conformance-baseline.json} records. Skipped when the data is not installed
 * ({@code apt-get install libonnx-testdata}; {@code .ci/run} installs it).
 */
class OnnxConformanceTest {

    @Test
    void suites_passAtLeastTheBaseline() throws IOException {
        Path data = ConformanceRunner.dataFolder();
        assumeTrue(Files.isDirectory(data.resolve("node")), "ONNX test data not installed at " + data
                + " (apt-get install libonnx-testdata); the conformance suite is skipped");
        Map<String, Integer> baseline = baseline();
        Map<String, List<CaseResult>> results = new LinkedHashMap<>();
        try (Session s = new Session(Device.CPU)) {
            ConformanceRunner runner = new ConformanceRunner(data, s, Duration.ofSeconds(60));
            for (String suite : ConformanceRunner.SUITES) {
                if (Files.isDirectory(data.resolve(suite))) {
                    results.put(suite, runner.runSuite(suite));
                }
            }
        }
        ConformanceReport report = new ConformanceReport(results);
        report.write(Path.of("target", "onnx-conformance"));
        System.out.print(report.summary());
        List<String> below = new ArrayList<>();
        for (var e : baseline.entrySet()) {
            int pass = report.totals(e.getKey()).pass();
            if (results.containsKey(e.getKey()) && pass < e.getValue()) {
                below.add(e.getKey() + ": " + pass + " pass, baseline " + e.getValue());
            }
        }
        assertTrue(below.isEmpty(), "conformance fell below the baseline (see target/onnx-conformance/"
                + "onnx-conformance.md): " + below + "\n" + report.summary());
    }

    /** Suite name to the passing count recorded in {@code conformance-baseline.json}. */
    static Map<String, Integer> baseline() throws IOException {
        Map<String, Integer> out = new LinkedHashMap<>();
        try (InputStream in = OnnxConformanceTest.class.getResourceAsStream("/conformance-baseline.json");
             JsonParser p = new JsonFactory().createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("conformance-baseline.json must be an object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                out.put(name, p.getIntValue());
            }
        }
        return out;
    }
}
