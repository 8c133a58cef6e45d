package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.rlx.onnx.conformance.CaseResult;
import dev.rlx.onnx.conformance.ConformanceReport;
import dev.rlx.onnx.conformance.ConformanceRunner;
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
 * The ONNX backend test suites on {@code Device.VULKAN}, with the CPU's mechanism: the report goes to
 * {@code target/onnx-conformance-vulkan/}, and the build fails when a suite passes fewer cases than
 * {@code vulkan-conformance-baseline.json} records. Skipped without the data or without a Vulkan device.
 */
class VulkanOnnxConformanceTest {
    @Test
    void suites_passAtLeastTheVulkanBaseline() throws IOException {
        Path data = ConformanceRunner.dataFolder();
        assumeTrue(Files.isDirectory(data.resolve("node")), "ONNX test data not installed at " + data
                + " (apt-get install libonnx-testdata); the conformance suite is skipped");
        assumeTrue(Device.VULKAN.isAvailable(), VulkanTestDevice.MISSING);
        Map<String, Integer> baseline = baseline();
        Map<String, List<CaseResult>> results = new LinkedHashMap<>();
        try (Session s = new Session(Device.VULKAN)) {
            ConformanceRunner runner = new ConformanceRunner(data, s, Duration.ofSeconds(60));
            for (String suite : ConformanceRunner.SUITES) {
                if (Files.isDirectory(data.resolve(suite))) {
                    results.put(suite, runner.runSuite(suite));
                }
            }
        }
        ConformanceReport report = new ConformanceReport(results);
        report.write(Path.of("target", "onnx-conformance-vulkan"));
        System.out.print(report.summary());
        List<String> below = new ArrayList<>();
        for (var e : baseline.entrySet()) {
            int pass = report.totals(e.getKey()).pass();
            if (results.containsKey(e.getKey()) && pass < e.getValue()) {
                below.add(e.getKey() + ": " + pass + " pass, baseline " + e.getValue());
            }
        }
        assertTrue(below.isEmpty(), "Vulkan conformance fell below the baseline (see target/onnx-conformance-vulkan/"
                + "onnx-conformance.md): " + below + "\n" + report.summary());
    }

    private static Map<String, Integer> baseline() throws IOException {
        Map<String, Integer> out = new LinkedHashMap<>();
        try (InputStream in = VulkanOnnxConformanceTest.class.getResourceAsStream("/vulkan-conformance-baseline.json");
             JsonParser p = new JsonFactory().createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("vulkan-conformance-baseline.json must be an object");
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
