package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.weights.Npy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunCommandTest {
    @TempDir
    static Path dir;
    private static Path model;
    private static final Map<String, Tensor> INPUTS = new LinkedHashMap<>();

    @BeforeAll
    static void files() throws IOException {
        model = dir.resolve("minilm.onnx");
        Files.write(model, MiniLm.FP32.modelBytes());
        INPUTS.put("input_ids", Tensor.of(new long[] {101, 7592, 2088, 2003, 2307, 1012, 2009, 102}, 1, 8));
        INPUTS.put("attention_mask", Tensor.of(new long[] {1, 1, 1, 1, 1, 1, 1, 1}, 1, 8));
        INPUTS.put("token_type_ids", Tensor.of(new long[8], 1, 8));
        for (var e : INPUTS.entrySet()) {
            Npy.write(dir.resolve(e.getKey() + ".npy"), e.getValue());
        }
    }

    private static String input(String name) {
        return name + "=" + dir.resolve(name + ".npy");
    }

    @Test
    void run_printsShapesAndTime_andSavesWhatTheRunnerComputes() {
        Path out = dir.resolve("out");
        Cli r = Cli.run(new RunCommand(), model.toString(), "-i", input("input_ids"), "-i", input("attention_mask"),
                "--input", input("token_type_ids"), "--runs", "2", "--save", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("minilm.onnx on cpu"), r.out());
        assertTrue(r.out().matches("(?s).*\n  first run \\(import, compile, run\\): [0-9.]+ ms\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*\n  steady state: [0-9.]+ ms per run \\(median of 2; min [0-9.]+, mean [0-9.]+\\)"
                + " after \\d+ warm-up runs.*"), r.out());
        assertTrue(r.err().contains("wrote " + out.resolve("last_hidden_state.npy")), r.err());
        // --device auto is the default: the choice and why, on stderr (only the CPU is usable without a GPU driver)
        assertTrue(r.err().startsWith("rlx run: --device auto: cpu ("), r.err());
        assertTrue(!r.out().contains("wrote"), "status lines go to stderr: " + r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("last_hidden_state") && l.contains("f32[1, 8, 384]")),
                r.out());
        Tensor saved = Npy.read(out.resolve("last_hidden_state.npy"));
        try (Session s = new Session(Device.CPU); OnnxRunner runner = new OnnxRunner(MiniLm.FP32.model(), s)) {
            Tensor expected = runner.run(INPUTS).get("last_hidden_state");
            assertEquals(expected.shape(), saved.shape());
            // within rounding, not bit-equal: before C2 compiles a kernel the Vector API runs its Java fallback,
            // whose transcendental lanes (Math.exp, ...) and reduction order differ from C2's intrinsics in the
            // last bits, so a run early in a JVM can differ from a later one
            assertArrayEquals(expected.toFloatArray(), saved.toFloatArray(), 1e-5f);
        }
    }

    @Test
    void warmup_runsExactlyThatMany_andTheThreadsShowInTheBanner() {
        Cli r = Cli.run(new RunCommand(), model.toString(), "-i", input("input_ids"), "-i", input("attention_mask"),
                "-i", input("token_type_ids"), "--runs", "1", "--warmup", "3", "--threads", "1");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("(median of 1; min ") && r.out().contains(") after 3 warm-up runs\n"), r.out());
        assertTrue(r.out().lines().findFirst().orElseThrow().matches("minilm\\.onnx on cpu .*\\b1 thread\\b.*"), r.out());
    }

    @Test
    void missingModelFile_isOneLineNamingIt() {
        Cli r = Cli.run(new RunCommand(), dir.resolve("absent.onnx").toString(), "-i", input("input_ids"));
        assertEquals(1, r.exit());
        assertEquals("rlx run: MODEL " + dir.resolve("absent.onnx") + ": no such file\n", r.err());
        assertEquals("", r.out());
    }

    @Test
    void missingInputFile_isNamedWithItsInput() {
        Cli r = Cli.run(new RunCommand(), model.toString(), "-i", "input_ids=" + dir.resolve("nope.npy"),
                "-i", input("attention_mask"), "-i", input("token_type_ids"));
        assertEquals(1, r.exit());
        assertEquals("rlx run: --input input_ids " + dir.resolve("nope.npy") + ": no such file\n", r.err());
    }

    @Test
    void missingInput_isNamedWithTheModelsInputs() {
        Cli r = Cli.run(new RunCommand(), model.toString(), "-i", input("input_ids"));
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("no --input for [attention_mask, token_type_ids]"), r.err());
        assertTrue(r.err().contains("input_ids INT64[batch_size, sequence_length]"), r.err());
    }

    @Test
    void unknownInputOrBadSyntax_isRefused() {
        Cli r = Cli.run(new RunCommand(), model.toString(), "-i", "pixels=" + dir.resolve("input_ids.npy"));
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("the model has no input 'pixels'"), r.err());
        Cli bad = Cli.run(new RunCommand(), model.toString(), "-i", "input_ids");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("--input takes NAME=FILE.npy, not 'input_ids'"), bad.err());
    }

    @Test
    void notAnNpyFile_isReportedWithItsPath() throws IOException {
        Path junk = dir.resolve("junk.npy");
        Files.writeString(junk, "not numpy");
        Cli r = Cli.run(new RunCommand(), model.toString(), "-i", "input_ids=" + junk, "-i", input("attention_mask"),
                "-i", input("token_type_ids"));
        assertEquals(1, r.exit());
        assertTrue(r.err().contains(junk.toString()) && r.err().contains("not an .npy file"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }
}
