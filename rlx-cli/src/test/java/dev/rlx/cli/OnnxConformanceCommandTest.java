package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.onnx.conformance.ConformanceRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OnnxConformanceCommandTest {
    @Test
    void noData_isAFailureSayingWhatToInstall(@TempDir Path dir) {
        Path none = dir.resolve("none");
        Cli r = Cli.rlx("onnx-conformance", "--data", none.toString());
        assertEquals(1, r.exit());
        assertEquals("rlx onnx-conformance: no ONNX test data at " + none + " (install Debian's libonnx-testdata, or name the"
                + " folder with --data or RLX_ONNX_TESTDATA)\n", r.err());
    }

    @Test
    void aMissingSuiteOrNoMatchingCase_isAFailure_notAnEmptyTable(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("node/test_abs"));
        Files.write(dir.resolve("node/test_abs/model.onnx"), new byte[0]);
        Cli suite = Cli.rlx("onnx-conformance", "--data", dir.toString(), "--suite", "simple");
        assertEquals(1, suite.exit());
        assertEquals("rlx onnx-conformance: no suite 'simple' in " + dir + " (a folder " + dir.resolve("simple")
                + " was expected)\n", suite.err());
        Cli none = Cli.rlx("onnx-conformance", "--data", dir.toString(), "--suite", "node", "--case", "nothing_like_this");
        assertEquals(1, none.exit());
        assertEquals("rlx onnx-conformance: no case of [node] in " + dir + " has 'nothing_like_this' in its name\n", none.err());
        assertEquals("", none.out());
    }

    @Test
    void aFewRealCases_giveTheTableAndListFailuresUnderVerbose() {
        Path data = ConformanceRunner.dataFolder();
        Assumptions.assumeTrue(Files.isDirectory(data.resolve("node")), "no ONNX test data at " + data);
        Cli r = Cli.rlx("onnx-conformance", "--suite", "node", "--case", "test_abs");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("| node | 1 | 1 |"), r.out());
        Cli v = Cli.rlx("onnx-conformance", "-v", "--suite", "node", "--case", "test_unique");
        assertEquals(0, v.exit(), v.err());
        assertTrue(v.out().lines().anyMatch(l -> l.startsWith("UNSUPPORTED node/test_unique")), v.out());
    }
}
