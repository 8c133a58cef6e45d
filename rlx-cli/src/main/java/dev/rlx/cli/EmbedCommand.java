package dev.rlx.cli;

import dev.rlx.ir.RlxException;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.onnx.text.BertTokenizer;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.Tick;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rlx embed TEXT...}: all-MiniLM-L6-v2 sentence embeddings (384 numbers each, unit length) and, for
 * several texts, their cosine similarity matrix. Timings go to standard error, so standard output is data.
 */
@Command(name = "embed", mixinStandardHelpOptions = true,
        description = "Embed sentences with all-MiniLM-L6-v2 (mean pooling, L2-normalised, as sentence-transformers) "
                + "and print each embedding and, for several texts, their cosine similarities.")
final class EmbedCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "TEXT", description = "The texts to embed.")
    List<String> texts;

    @Option(names = {"--int8", "--quantized"}, description = "Use the int8 (dynamically quantized) model.")
    boolean int8;

    @Mixin
    SessionOptions sessionOptions;

    @Option(names = "--max-length", description = "Truncate texts to this many tokens, [CLS] and [SEP] included "
            + "(default: the tokenizer's 128; at most 512).")
    Integer maxLength;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        MiniLm which = int8 ? MiniLm.INT8 : MiniLm.FP32;
        if (maxLength != null && (maxLength < 2 || maxLength > MiniLm.MAX_POSITIONS)) {
            err.println("rlx embed: --max-length must be 2.." + MiniLm.MAX_POSITIONS + " but is " + maxLength);
            return 2;
        }
        try (Session s = sessionOptions.open()) {
            Tick t0 = Tick.now();
            BertTokenizer tok = which.tokenizer();
            if (maxLength != null) {
                tok = tok.withMaxLength(maxLength);
            }
            try (SentenceEmbedder e = new SentenceEmbedder(which.model(), tok, s)) {
                double loadMs = Tick.now().elapsedMs(t0);
                Tick t1 = Tick.now();
                float[][] v = e.embed(texts);
                double firstMs = Tick.now().elapsedMs(t1);
                int[] tokens = texts.stream().mapToInt(t -> e.tokenizer().encode(t).length()).toArray();
                err.printf(Locale.ROOT, "all-MiniLM-L6-v2 %s on %s: model read in %.0f ms, batch embedded (import, "
                        + "compile, run) in %.0f ms; steady-state latency: ./rlx-bench/run MiniLm%n",
                        int8 ? "int8" : "fp32", s.backendName(), loadMs, firstMs);
                err.flush();
                if (json) {
                    json(out, which, tokens, v);
                } else {
                    text(out, tokens, v);
                }
            }
        } catch (RlxException e) {
            err.println("rlx embed: " + e.getMessage());
            return 1;
        }
        out.flush();
        return 0;
    }

    private void text(PrintWriter out, int[] tokens, float[][] v) {
        for (int i = 0; i < v.length; i++) {
            out.printf(Locale.ROOT, "[%d] \"%s\" (%d tokens)%n", i, texts.get(i), tokens[i]);
            for (int d = 0; d < v[i].length; d += 12) {
                StringBuilder line = new StringBuilder(" ");
                for (int k = d; k < Math.min(d + 12, v[i].length); k++) {
                    line.append(String.format(Locale.ROOT, " %8.5f", v[i][k]));
                }
                out.println(line);
            }
        }
        if (v.length > 1) {
            out.println("cosine similarity");
            TextTable t = new TextTable(header(v.length));
            for (int i = 0; i < v.length; i++) {
                String[] row = new String[v.length + 1];
                row[0] = "[" + i + "]";
                for (int j = 0; j < v.length; j++) {
                    row[j + 1] = String.format(Locale.ROOT, "%7.4f", SentenceEmbedder.cosine(v[i], v[j]));
                }
                t.row(row);
            }
            t.print(out);
        }
    }

    private static String[] header(int n) {
        String[] h = new String[n + 1];
        h[0] = "";
        for (int j = 0; j < n; j++) {
            h[j + 1] = "[" + j + "]";
        }
        return h;
    }

    private void json(PrintWriter out, MiniLm which, int[] tokens, float[][] v) {
        JsonOut.write(out, false, g -> {
            g.writeStartObject();
            g.writeStringField("model", "all-MiniLM-L6-v2");
            g.writeStringField("variant", which == MiniLm.INT8 ? "int8" : "fp32");
            g.writeNumberField("dimension", MiniLm.DIM);
            g.writeArrayFieldStart("texts");
            for (int i = 0; i < v.length; i++) {
                g.writeStartObject();
                g.writeStringField("text", texts.get(i));
                g.writeNumberField("tokens", tokens[i]);
                g.writeArrayFieldStart("embedding");
                for (float x : v[i]) {
                    g.writeNumber(x);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("similarity");
            for (float[] a : v) {
                g.writeStartArray();
                for (float[] b : v) {
                    g.writeNumber(SentenceEmbedder.cosine(a, b));
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }
}
