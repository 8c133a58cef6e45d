package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.onnx.conformance.ConformanceRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The installed application, started as users start it: target/rlx/bin/rlx, a real process in a folder of
 * its own. Runs after {@code package} has laid the application out (the "launcher" executions in the pom).
 */
@Tag("launcher")
class LauncherTest {
    static final Path APP = Path.of(System.getProperty("rlx.app", "target/rlx")).toAbsolutePath();
    static final Path RLX = APP.resolve("bin/rlx");
    static final String JDK = System.getProperty("java.home");

    /** What a process printed and its exit status. */
    record Run(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }
    }

    /** Runs {@code command} in {@code dir} with RLX_JAVA_HOME set to this JVM's JDK unless {@code env} says otherwise. */
    static Run run(Path dir, Consumer<Map<String, String>> env, String... command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
            pb.environment().put("RLX_JAVA_HOME", JDK);
            env.accept(pb.environment());
            Path out = Files.createTempFile("rlx-out", ".txt");
            Path err = Files.createTempFile("rlx-err", ".txt");
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
            p.getOutputStream().close();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish in 180 s");
            }
            Run r = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
            Files.delete(out);
            Files.delete(err);
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static Run rlx(Path dir, String... args) {
        return rlx(dir, env -> { }, args);
    }

    static Run rlx(Path dir, Consumer<Map<String, String>> env, String... args) {
        List<String> command = new ArrayList<>(List.of(RLX.toString()));
        command.addAll(List.of(args));
        return run(dir, env, command.toArray(String[]::new));
    }

    @Test
    void theApplicationIsLaidOut() throws IOException {
        assertTrue(Files.isExecutable(RLX), RLX + " (run mvn package first)");
        assertTrue(Files.isExecutable(APP.resolve("bin/find-jdk")));
        try (var jar = new java.util.jar.JarFile(APP.resolve("lib/rlx.jar").toFile())) {
            assertEquals("dev.rlx.cli.Main", jar.getManifest().getMainAttributes().getValue("Main-Class"));
            List<String> names = jar.stream().map(java.util.zip.ZipEntry::getName).toList();
            for (String needed : List.of("dev/rlx/cli/Main.class", "dev/rlx/cpu/CpuBackend.class", "picocli/CommandLine.class",
                    "all-minilm-l6-v2.onnx", "all-minilm-l6-v2-q-tokenizer.json")) {
                assertTrue(names.contains(needed), needed);
            }
            assertTrue(names.stream().noneMatch(n -> n.startsWith("org/junit") || n.startsWith("ai/onnxruntime")
                    || n.startsWith("org/bytedeco") || n.startsWith("dev/langchain4j/")), "no test or unused classes");
            String services = new String(jar.getInputStream(jar.getEntry("META-INF/services/dev.rlx.runtime.spi.BackendProvider"))
                    .readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(services.contains("dev.rlx.cpu."), services);
        }
    }

    @Test
    void versionAndHelp_stdoutIsTheResultAlone_stderrIsEmpty(@TempDir Path dir) {
        Run v = rlx(dir, "--version");
        assertEquals(new Run(0, "rlx " + dev.rlx.runtime.Rlx.VERSION + "\n", ""), v,
                "no ANSI escape, no JVM notice about the incubator module");
        Run none = rlx(dir);
        assertEquals(0, none.exit());
        assertTrue(none.out().startsWith("Usage: rlx"), none.out());
        Run watch = rlx(dir, env -> env.put("RLX_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so"), "gpu", "--watch", "0.01",
                "--count", "2");
        assertEquals(0, watch.exit(), watch.err());
        assertFalse(watch.out().contains("\033"), "no screen-clearing escapes into a file: " + watch.out());
        assertEquals(2, watch.out().lines().filter(l -> l.startsWith("rlx gpu, every 0.01 s: ")).count(), watch.out());
    }

    @Test
    @SuppressWarnings("unchecked")
    void argumentsArriveAsGiven_andJsonOutputParses_evenUnderTheCLocale(@TempDir Path dir) {
        List<String> texts = new ArrayList<>(List.of("He said \"hi\" to me", "back\\slash \\\" and \\",
                "${user.home} $HOME $(id) `id` *", "", "  spaced  "));
        // this JVM hands arguments to the process in its own locale's encoding, which must be able to say them
        if ("UTF-8".equals(System.getProperty("sun.jnu.encoding"))) {
            texts.add("caf\u00e9 \u65e5\u672c \ud83d\ude00");
        }
        List<String> args = new ArrayList<>(List.of("embed", "--json", "--threads", "1"));
        args.addAll(texts);
        Run r = rlx(dir, env -> env.put("LC_ALL", "C"), args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        Map<String, Object> doc = JsonTree.object(r.out()); // the whole of stdout is one JSON document
        List<Map<String, Object>> got = (List<Map<String, Object>>) doc.get("texts");
        assertEquals(texts, got.stream().map(t -> t.get("text")).toList());
        List<String> err = r.errLines().stream().map(l -> l.replaceAll(" \\(.*", "")).toList();
        assertEquals(2, err.size(), "stderr has the device choice and the one timing line: " + r.err());
        assertTrue(err.get(0).startsWith("rlx embed: --device auto: "), r.err());
        assertEquals("all-MiniLM-L6-v2 fp32 on " + err.get(0).substring("rlx embed: --device auto: ".length()), err.get(1),
                r.err());
        Run hw = rlx(dir, "hw", "--json");
        assertEquals(0, hw.exit(), hw.err());
        assertTrue(JsonTree.object(hw.out()).containsKey("fingerprint"), hw.out());
    }

    @Test
    void errorsAreOneLineWithTheExitStatus(@TempDir Path dir) throws IOException {
        Run usage = rlx(dir, "embed", "--max-length", "1", "x");
        assertEquals(new Run(2, "", "rlx embed: --max-length must be 2..512 but is 1; see 'rlx embed --help'\n"), usage);
        Run unknown = rlx(dir, "bogus");
        assertEquals(2, unknown.exit());
        assertEquals(1, unknown.errLines().size(), unknown.err());
        Run missing = rlx(dir, "run", "model.onnx");
        assertEquals(new Run(1, "", "rlx run: MODEL model.onnx: no such file in " + dir.toRealPath() + "\n"), missing,
                "a relative path is from the caller's folder");
    }

    @Test
    void relativePathsAreFromTheCallersFolder(@TempDir Path dir) throws IOException {
        Path data = ConformanceRunner.dataFolder();
        Assumptions.assumeTrue(Files.isRegularFile(data.resolve("node/test_abs/model.onnx")), "no ONNX test data at " + data);
        Path cases = Files.createDirectories(dir.resolve("data/node"));
        Files.createSymbolicLink(cases.resolve("test_abs"), data.resolve("node/test_abs"));
        Run r = rlx(dir, "onnx-conformance", "--data", "data", "--suite", "node", "--report", "report");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("| node | 1 | 1 |"), r.out());
        assertTrue(Files.isRegularFile(dir.resolve("report/onnx-conformance.md")), "written under the caller's folder");
        assertEquals("wrote report/onnx-conformance.md and .json\n", r.err());
    }

    @Test
    void theLaunchersJvmFlags_andRlxJavaOptsAfterThem(@TempDir Path dir) {
        Run r = rlx(dir, env -> env.put("RLX_JAVA_OPTS", "-XX:+PrintFlagsFinal -XX:InlineSmallCode=3000 -XshowSettings:properties"),
                "--version");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().endsWith("\nrlx " + dev.rlx.runtime.Rlx.VERSION + "\n"), r.out());
        assertTrue(r.out().matches("(?s).*\\bInlineSmallCode +:?= 3000\\b.*"), "RLX_JAVA_OPTS wins over the launcher's 6000");
        assertTrue(r.out().matches("(?s).*\\bThreadStackSize +:?= 4096\\b.*"), "the launcher's -Xss4m");
        for (String setting : List.of("rlx.progress = false", "stdout.encoding = UTF-8", "java.home = " + JDK)) {
            assertTrue(r.err().contains(setting), setting + " in\n" + r.err());
        }
        Run hw = rlx(dir, "hw");
        assertTrue(hw.out().contains("-bit preferred species"), "the Vector API module is there: " + hw.out());
    }

    @Test
    void startsThroughASymbolicLink_fromAnywhere_andFindsAJdkWithoutBeingTold(@TempDir Path dir) throws IOException {
        Path link = Files.createSymbolicLink(Files.createDirectories(dir.resolve("bin")).resolve("rlx"), RLX);
        Run r = run(dir, env -> env.remove("RLX_JAVA_HOME"), link.toString(), "--version");
        assertEquals(new Run(0, "rlx " + dev.rlx.runtime.Rlx.VERSION + "\n", ""), r);
        Run notJdk = rlx(dir, env -> env.put("RLX_JAVA_HOME", dir.toString()), "--version");
        assertEquals(new Run(1, "", "rlx: RLX_JAVA_HOME=" + dir + " is not a JDK\n"), notJdk);
    }

    @Test
    void completionScript(@TempDir Path dir) {
        Run r = rlx(dir, "generate-completion");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("complete -F _complete_rlx"), r.out());
        assertFalse(r.out().isBlank());
    }
}
