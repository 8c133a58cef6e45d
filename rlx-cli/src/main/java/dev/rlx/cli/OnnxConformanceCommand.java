package dev.rlx.cli;

import dev.rlx.onnx.conformance.CaseResult;
import dev.rlx.onnx.conformance.ConformanceReport;
import dev.rlx.onnx.conformance.ConformanceRunner;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rlx onnx-conformance}: runs the ONNX backend test suites on the CPU backend and reports. */
@Command(name = "onnx-conformance", mixinStandardHelpOptions = true,
        description = "Run the ONNX backend test data (libonnx-testdata) on the CPU backend: each case passes, fails"
                + " (with its max error), is unsupported (which op) or errors; prints a summary table.")
final class OnnxConformanceCommand implements Callable<Integer> {
    @Option(names = "--suite", split = ",", description = "Suites to run (default: all): ${COMPLETION-CANDIDATES}",
            completionCandidates = Suites.class)
    List<String> suites;

    @Option(names = "--data", description = "The suites' folder (default: RLX_ONNX_TESTDATA or ${DEFAULT-VALUE}).")
    Path data = ConformanceRunner.dataFolder();

    @Option(names = "--report", description = "Write onnx-conformance.md and .json into this folder.")
    Path report;

    @Option(names = "--case", description = "Run only the cases whose name contains this text.")
    String only;

    @Option(names = "--timeout", description = "Time limit per case in seconds (default ${DEFAULT-VALUE}).")
    int timeout = 30;

    @Option(names = {"-v", "--verbose"}, description = "Print every case that does not pass.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    static final class Suites extends java.util.ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Suites() {
            super(ConformanceRunner.SUITES);
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (!Files.isDirectory(data)) {
            spec.commandLine().getErr().println("no ONNX test data at " + data
                    + " (install Debian's libonnx-testdata, or set RLX_ONNX_TESTDATA)");
            return 2;
        }
        Map<String, List<CaseResult>> results = new LinkedHashMap<>();
        try (Session s = new Session(Device.CPU)) {
            ConformanceRunner runner = new ConformanceRunner(data, s, Duration.ofSeconds(timeout));
            for (String suite : suites == null ? ConformanceRunner.SUITES : suites) {
                if (!Files.isDirectory(data.resolve(suite))) {
                    continue;
                }
                List<CaseResult> r = only == null ? runner.runSuite(suite) : runner.runSuite(suite).stream()
                        .filter(c -> c.name().contains(only)).toList();
                results.put(suite, r);
                if (verbose) {
                    r.stream().filter(c -> c.status() != CaseResult.Status.PASS)
                            .forEach(c -> out.println(c.status() + " " + suite + "/" + c.name() + ": " + c.detail()));
                }
                out.flush();
            }
        }
        ConformanceReport rep = new ConformanceReport(results);
        out.print(rep.summary());
        if (report != null) {
            rep.write(report);
            out.println("wrote " + report.resolve("onnx-conformance.md") + " and .json");
        }
        out.flush();
        return 0;
    }
}
