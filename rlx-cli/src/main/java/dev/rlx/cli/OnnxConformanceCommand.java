package dev.rlx.cli;

import dev.rlx.onnx.conformance.CaseResult;
import dev.rlx.onnx.conformance.ConformanceReport;
import dev.rlx.onnx.conformance.ConformanceRunner;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code rlx onnx-conformance}: runs the ONNX backend test suites on the CPU backend and reports. */
@Command(name = "onnx-conformance", mixinStandardHelpOptions = true,
        description = "Run the ONNX backend test data (libonnx-testdata) on the CPU backend: each case passes, fails"
                + " (with its max error), is unsupported (which op) or errors; prints a summary table.")
final class OnnxConformanceCommand implements Callable<Integer> {
    @Option(names = "--suite", split = ",", paramLabel = "SUITE",
            description = "Suites to run (default: all): ${COMPLETION-CANDIDATES}", completionCandidates = Suites.class)
    List<String> suites;

    @Option(names = "--data", paramLabel = "DIR",
            description = "The suites' folder (default: RLX_ONNX_TESTDATA or ${DEFAULT-VALUE}).")
    Path data = ConformanceRunner.dataFolder();

    @Option(names = "--report", paramLabel = "DIR", description = "Write onnx-conformance.md and .json into this folder.")
    Path report;

    @Option(names = "--case", paramLabel = "TEXT", description = "Run only the cases whose name contains this text.")
    String only;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Time limit per case in seconds (default ${DEFAULT-VALUE}).")
    int timeout = 30;

    @Spec
    CommandSpec spec;

    static final class Suites extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Suites() {
            super(ConformanceRunner.SUITES);
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        OptionChecks.atLeast(spec, "--timeout", timeout, 1);
        List<String> chosen = suites == null ? ConformanceRunner.SUITES : suites;
        for (String s : chosen) {
            if (!ConformanceRunner.SUITES.contains(s)) {
                throw new ParameterException(spec.commandLine(), "--suite " + s + ": unknown suite; choose from "
                        + String.join(", ", ConformanceRunner.SUITES));
            }
        }
        if (!Files.isDirectory(data)) {
            throw new MissingTestDataException("no ONNX test data at " + data
                    + " (install Debian's libonnx-testdata, or name the folder with --data or RLX_ONNX_TESTDATA)");
        }
        Map<String, List<Path>> cases = new LinkedHashMap<>();
        int total = 0;
        for (String suite : chosen) {
            List<Path> c = cases(suite);
            cases.put(suite, c);
            total += c.size();
        }
        if (total == 0) {
            throw new MissingTestDataException(only == null ? "no cases in " + data + " for " + chosen
                    : "no case of " + chosen + " in " + data + " has '" + only + "' in its name");
        }
        boolean listFailures = Main.verbose(spec);
        Map<String, List<CaseResult>> results = new LinkedHashMap<>();
        try (Session s = new Session(Device.CPU); Progress progress = Progress.onTerminal(err)) {
            ConformanceRunner runner = new ConformanceRunner(data, s, Duration.ofSeconds(timeout));
            int done = 0;
            for (Map.Entry<String, List<Path>> e : cases.entrySet()) {
                List<CaseResult> r = new ArrayList<>();
                for (Path c : e.getValue()) {
                    progress.update("onnx-conformance: " + done + " of " + total + " cases, " + e.getKey() + "/" + c.getFileName());
                    CaseResult result = runner.runCase(e.getKey(), c);
                    r.add(result);
                    done++;
                    if (listFailures && result.status() != CaseResult.Status.PASS) {
                        progress.clear();
                        out.println(result.status() + " " + e.getKey() + "/" + result.name() + ": " + result.detail());
                        out.flush();
                    }
                }
                results.put(e.getKey(), r);
            }
        }
        ConformanceReport rep = new ConformanceReport(results);
        out.print(rep.summary());
        out.flush();
        if (report != null) {
            rep.write(report);
            err.println("wrote " + report.resolve("onnx-conformance.md") + " and .json");
        }
        return 0;
    }

    /** The case folders of {@code suite} (those holding a {@code model.onnx}) whose name has {@code --case}, by name. */
    private List<Path> cases(String suite) {
        Path dir = data.resolve(suite);
        if (!Files.isDirectory(dir)) {
            throw new MissingTestDataException("no suite '" + suite + "' in " + data + " (a folder " + dir + " was expected)");
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("model.onnx")))
                    .filter(p -> only == null || p.getFileName().toString().contains(only)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
