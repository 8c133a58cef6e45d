package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What every {@code rlx} command shares: help, exit status, one-line errors, --verbose, completion. */
class MainTest {
    @Test
    void noArguments_printsTheHelp() {
        Cli r = Cli.rlx();
        assertEquals(0, r.exit());
        assertTrue(r.out().startsWith("Usage: rlx [-hvV] [COMMAND]"), r.out());
        for (String command : new String[] {"demo", "embed", "run", "hw", "gpu", "onnx-conformance", "generate-completion"}) {
            assertTrue(r.out().contains("\n  " + command + " "), command + " in\n" + r.out());
        }
        assertTrue(r.out().contains("Exit status: 0 success, 1 failure, 2 usage error"), r.out());
        assertEquals(r.out(), Cli.rlx("--help").out());
    }

    @Test
    void unknownCommandOrOption_isOneLineAndStatus2() {
        Cli r = Cli.rlx("embd", "x");
        assertEquals(2, r.exit());
        assertEquals("rlx: unknown command 'embd' (did you mean embed or spark-embed or demo?); see 'rlx --help'\n", r.err());
        assertEquals("", r.out());
        Cli o = Cli.rlx("hw", "--jsn");
        assertEquals(2, o.exit());
        assertEquals(1, o.err().lines().count(), o.err());
        assertTrue(o.err().startsWith("rlx hw: Unknown option: '--jsn'"), o.err());
    }

    /** The same wording and status for a value out of range, whichever command and option. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "demo --runs 0                    | rlx demo: --runs must be at least 1 but is 0",
        "demo --warmup -1                 | rlx demo: --warmup must be at least 0 but is -1",
        "run m.onnx --runs 0              | rlx run: --runs must be at least 1 but is 0",
        "run m.onnx --warmup -2           | rlx run: --warmup must be at least 0 but is -2",
        "embed --max-length 513 x         | rlx embed: --max-length must be 2..512 but is 513",
        "embed --threads 5000 x           | rlx embed: --threads must be 0..4096 but is 5000",
        "demo --threads -1                | rlx demo: --threads must be 0..4096 but is -1",
        "onnx-conformance --timeout 0     | rlx onnx-conformance: --timeout must be at least 1 but is 0",
        "onnx-conformance --suite bogus   | rlx onnx-conformance: --suite bogus: unknown suite; choose from node, pytorch-converted, pytorch-operator, simple",
        "gpu --count -1                   | rlx gpu: --count must be at least 0 but is -1",
    })
    void outOfRange_isAUsageErrorWordedTheSameEverywhere(String args, String message) {
        Cli r = Cli.rlx(args.trim().split(" +"));
        assertEquals(2, r.exit(), r.err());
        String command = message.substring(0, message.indexOf(':'));
        assertEquals(message + "; see '" + command + " --help'\n", r.err());
        assertEquals("", r.out());
    }

    @Test
    void verbose_addsTheStackTrace_beforeOrAfterTheCommand(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("bad.onnx");
        Files.write(bad, new byte[] {1, 2, 3});
        Cli quiet = Cli.rlx("run", bad.toString());
        assertEquals(1, quiet.exit());
        assertEquals(1, quiet.err().lines().count(), quiet.err());
        assertTrue(quiet.err().startsWith("rlx run: "), quiet.err());
        for (String[] args : new String[][] {{"run", "--verbose", bad.toString()}, {"-v", "run", bad.toString()}}) {
            Cli loud = Cli.rlx(args);
            assertEquals(1, loud.exit());
            assertTrue(loud.err().startsWith(quiet.err()), loud.err());
            assertTrue(loud.err().contains("\n\tat dev.rlx."), loud.err());
        }
    }

    @Test
    void errorMessages_nameTheFileOrSayWhatFailed() {
        assertEquals("x.onnx: no such file or folder", ErrorReporter.describe(new java.nio.file.NoSuchFileException("x.onnx")));
        assertEquals("/root/y: permission denied", ErrorReporter.describe(
                new java.io.UncheckedIOException(new java.nio.file.AccessDeniedException("/root/y"))));
        assertEquals("a: not a directory", ErrorReporter.describe(new java.nio.file.FileSystemException("a", null, "not a directory")));
        assertTrue(ErrorReporter.describe(new NullPointerException("boom"))
                .equals("internal error: java.lang.NullPointerException: boom (--verbose shows where)"));
    }

    @Test
    void generateCompletion_isABashScriptForEveryCommand() {
        Cli r = Cli.rlx("generate-completion");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("complete -F _complete_rlx"), r.out());
        for (String command : new String[] {"embed", "run", "onnx-conformance", "--max-length", "--warmup", "--device"}) {
            assertTrue(r.out().contains(command), command);
        }
    }

    @Test
    void version() {
        Cli r = Cli.rlx("--version");
        assertEquals(0, r.exit());
        assertEquals("rlx " + dev.rlx.runtime.Rlx.VERSION + "\n", r.out());
    }
}
