package dev.rlx.llm.reference;

import de.kherud.llama.InferenceParameters;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.LlamaOutput;
import de.kherud.llama.LogLevel;
import de.kherud.llama.ModelParameters;
import de.kherud.llama.args.LogFormat;
import de.kherud.llama.args.PoolingType;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;

/**
 * Runs llama.cpp (de.kherud:llama) in a JVM of its own, started by {@link LlamaCpp}: it can abort the process.
 * {@code tokenize MODEL INPUT OUTPUT}: INPUT has one base64 UTF-8 text a line; OUTPUT gets each text's ids as a
 * line of space-separated numbers (the binding's {@code encode}: no BOS added, special tokens parsed).
 * {@code generate MODEL PROMPT OUTPUT N}: PROMPT holds a base64 UTF-8 prompt; OUTPUT gets the text of N greedy
 * tokens, base64. {@code embed MODEL INPUT OUTPUT}: for each base64 text of INPUT, the final-norm hidden state of its
 * last token (pooling LAST; the server L2-normalises it), a line of floats.
 * (The binding's {@code setNProbs} cannot be used: 4.2.0 aborts parsing its own probabilities.)
 */
public final class LlamaCppMain {
    private LlamaCppMain() {}

    public static void main(String[] args) throws Exception {
        LlamaModel.setLogger(LogFormat.TEXT, (LogLevel l, String m) -> { });
        String mode = args[0];
        Path model = Path.of(args[1]);
        ModelParameters p = new ModelParameters().setModel(model.toString()).setThreads(1).setCtxSize(512)
                .setGpuLayers(0);
        if (mode.equals("embed")) {
            p.enableEmbedding().setPoolingType(PoolingType.LAST);
        }
        try (LlamaModel m = new LlamaModel(p);
             PrintStream out = new PrintStream(Files.newOutputStream(Path.of(args[3])), true, StandardCharsets.UTF_8)) {
            switch (mode) {
                case "tokenize" -> {
                    List<String> lines = Files.readAllLines(Path.of(args[2]));
                    for (String line : lines) {
                        String text = new String(Base64.getDecoder().decode(line), StandardCharsets.UTF_8);
                        StringBuilder sb = new StringBuilder();
                        for (int id : m.encode(text)) {
                            sb.append(sb.isEmpty() ? "" : " ").append(id);
                        }
                        out.println(sb);
                    }
                }
                case "generate" -> {
                    // greedy: temperature 0 keeps only the largest logit; EOS ignored so every run has n tokens
                    String prompt = new String(Base64.getDecoder().decode(Files.readString(Path.of(args[2])).trim()),
                            StandardCharsets.UTF_8);
                    InferenceParameters ip = new InferenceParameters(prompt).setNPredict(Integer.parseInt(args[4]))
                            .setTemperature(0).setIgnoreEos(true).setCachePrompt(false).setSeed(1);
                    StringBuilder sb = new StringBuilder();
                    for (LlamaOutput o : m.generate(ip)) {
                        sb.append(o.text);
                    }
                    out.println(Base64.getEncoder().encodeToString(sb.toString().getBytes(StandardCharsets.UTF_8)));
                }
                case "embed" -> {
                    // the last token's hidden state after the output norm (pooling LAST), L2-normalised by the
                    // server: one line of floats per base64 text
                    for (String line : Files.readAllLines(Path.of(args[2]))) {
                        float[] e = m.embed(new String(Base64.getDecoder().decode(line), StandardCharsets.UTF_8));
                        StringBuilder sb = new StringBuilder();
                        for (float x : e) {
                            sb.append(sb.isEmpty() ? "" : " ").append(x);
                        }
                        out.println(sb);
                    }
                }
                default -> throw new IllegalArgumentException(mode);
            }
        }
        // the binding's server threads outlive close(): end the JVM once the output is written
        System.exit(0);
    }
}
