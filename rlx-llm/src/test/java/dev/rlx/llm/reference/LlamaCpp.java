package dev.rlx.llm.reference;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link LlamaCppMain} in a forked JVM with this test's class path, its native library unpacked into a
 * folder of the test's own ({@code -Dde.kherud.llama.tmpdir}: by default it deletes {@code llama*} files in
 * {@code java.io.tmpdir}), and reads back what it wrote.
 */
public final class LlamaCpp {
    private LlamaCpp() {}

    /** llama.cpp's ids for each text. */
    public static List<int[]> tokenize(Path model, List<String> texts, Path work) throws IOException,
            InterruptedException {
        Path in = work.resolve("texts.b64");
        Path out = work.resolve("ids.txt");
        List<String> lines = new ArrayList<>();
        for (String t : texts) {
            lines.add(Base64.getEncoder().encodeToString(t.getBytes(StandardCharsets.UTF_8)));
        }
        Files.write(in, lines);
        run(work, "tokenize", model.toString(), in.toString(), out.toString());
        List<int[]> ids = new ArrayList<>();
        for (String l : Files.readAllLines(out)) {
            ids.add(l.isBlank() ? new int[0] : java.util.Arrays.stream(l.trim().split(" "))
                    .mapToInt(Integer::parseInt).toArray());
        }
        return ids;
    }

    /** The text llama.cpp generates greedily for {@code n} tokens after {@code prompt} (BOS by the vocab's rule). */
    public static String generate(Path model, String prompt, int n, Path work) throws IOException,
            InterruptedException {
        Path in = work.resolve("prompt.b64");
        Path out = work.resolve("generated.b64");
        Files.writeString(in, Base64.getEncoder().encodeToString(prompt.getBytes(StandardCharsets.UTF_8)));
        run(work, "generate", model.toString(), in.toString(), out.toString(), Integer.toString(n));
        return new String(Base64.getDecoder().decode(Files.readString(out).trim()), StandardCharsets.UTF_8);
    }

    /** For each text, llama.cpp's final-norm hidden state of its last token, L2-normalised (see LlamaCppMain). */
    public static List<float[]> lastHidden(Path model, List<String> texts, Path work) throws IOException,
            InterruptedException {
        Path in = work.resolve("embed.b64");
        Path out = work.resolve("embed.txt");
        List<String> lines = new ArrayList<>();
        for (String t : texts) {
            lines.add(Base64.getEncoder().encodeToString(t.getBytes(StandardCharsets.UTF_8)));
        }
        Files.write(in, lines);
        run(work, "embed", model.toString(), in.toString(), out.toString());
        List<float[]> rows = new ArrayList<>();
        for (String l : Files.readAllLines(out)) {
            String[] f = l.trim().split(" ");
            float[] v = new float[f.length];
            for (int i = 0; i < f.length; i++) {
                v[i] = Float.parseFloat(f[i]);
            }
            rows.add(v);
        }
        return rows;
    }

    private static void run(Path work, String... args) throws IOException, InterruptedException {
        Path lib = Files.createDirectories(work.resolve("llama-native"));
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Dde.kherud.llama.tmpdir=" + lib, "-cp",
                System.getProperty("java.class.path"), LlamaCppMain.class.getName()));
        cmd.addAll(List.of(args));
        Path log = work.resolve("llama.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("llama.cpp reference timed out: " + Files.readString(log));
        }
        if (p.exitValue() != 0) {
            throw new IOException("llama.cpp reference exited with " + p.exitValue() + ": " + Files.readString(log));
        }
    }
}
