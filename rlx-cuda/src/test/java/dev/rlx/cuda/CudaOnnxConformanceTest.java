package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rlx.onnx.conformance.CaseResult;
import dev.rlx.onnx.conformance.ConformanceReport;
import dev.rlx.onnx.conformance.ConformanceRunner;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ONNX backend test suites on {@code Device.CUDA}: at least 90% of the in-scope node cases pass, as on the
 * CPU. The report goes to {@code rlx.cuda.report.dir} (default {@code target/onnx-conformance-cuda}). Skipped
 * without the data ({@code RLX_ONNX_TESTDATA} or libonnx-testdata) or without a CUDA device.
 */
class CudaOnnxConformanceTest {
    @Test
    void nodeSuite_passesAtLeast90PercentOfInScopeCases() {
        Path data = ConformanceRunner.dataFolder();
        assumeTrue(Files.isDirectory(data.resolve("node")), "ONNX test data not installed at " + data
                + " (apt-get install libonnx-testdata, or set RLX_ONNX_TESTDATA)");
        assumeTrue(Device.CUDA.isAvailable(), CudaTestDevice::missing);
        Map<String, List<CaseResult>> results = new LinkedHashMap<>();
        try (Session s = new Session(Device.CUDA)) {
            ConformanceRunner runner = new ConformanceRunner(data, s, Duration.ofSeconds(60));
            for (String suite : ConformanceRunner.SUITES) {
                if (Files.isDirectory(data.resolve(suite))) {
                    results.put(suite, runner.runSuite(suite));
                }
            }
        }
        ConformanceReport report = new ConformanceReport(results);
        report.write(Path.of(System.getProperty("rlx.cuda.report.dir", "target/onnx-conformance-cuda")));
        System.out.print(report.summary());
        ConformanceReport.Totals node = report.totals("node");
        assertTrue(node.passPercent() >= 90.0, String.format(Locale.ROOT,
                "node suite on CUDA: %d of %d in-scope cases pass (%.1f%%), below 90%%%n%s", node.pass(),
                node.inScope(), node.passPercent(), report.summary()));
    }
}
