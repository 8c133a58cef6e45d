package dev.rlx.cli;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.onnx.text.BertTokenizer;
import dev.rlx.runtime.CompileOptions;
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
 * several texts, their cosine similarity matrix. Timings, warnings and progress go to standard error, so standard
 * output is data.
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

    @Option(names = "--max-length", paramLabel = "N", description = "Cut texts to this many tokens, [CLS] and [SEP] "
            + "included, with a warning for each text cut (default: the tokenizer's 128; at most 512).")
    Integer maxLength;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Spec
    CommandSpec spec;

    /** The text output shows at most this many characters of each text. */
    static final int ECHO_CHARS = 80;
    /** Under --device auto, devices are weighed on the model at this batch and sequence length. */
    static final int AUTO_TOKENS = 32;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        MiniLm which = int8 ? MiniLm.INT8 : MiniLm.FP32;
        if (maxLength != null) {
            OptionChecks.between(spec, "--max-length", maxLength, 2, MiniLm.MAX_POSITIONS);
        }
        float[][] v;
        int[] tokens;
        int limit;
        try (Session s = sessionOptions.openFor(() -> ModelGraphs.withSymbolicDims(which.model(), AUTO_TOKENS),
                CompileOptions.defaults()); Progress progress = Progress.onTerminal(err)) {
            Tick t0 = Tick.now();
            progress.show("rlx embed: reading all-MiniLM-L6-v2 " + variant(which));
            BertTokenizer tok = which.tokenizer();
            if (maxLength != null) {
                tok = tok.withMaxLength(maxLength);
            }
            tokens = tokenCounts(tok);
            try (SentenceEmbedder e = new SentenceEmbedder(which.model(), tok, s)) {
                double loadMs = Tick.now().elapsedMs(t0);
                progress.show("rlx embed: importing, compiling and running the model on " + texts.size() + " text"
                        + (texts.size() == 1 ? "" : "s"));
                Tick t1 = Tick.now();
                v = e.embed(texts);
                double firstMs = Tick.now().elapsedMs(t1);
                progress.clear();
                err.printf(Locale.ROOT, "all-MiniLM-L6-v2 %s on %s: model read in %.0f ms, embedded (import, compile, "
                        + "run) in %.0f ms%n",
                        variant(which), sessionOptions.describe(s), loadMs, firstMs);
                limit = tok.maxLength();
                warnTruncated(err, limit, tokens);
            }
        }
        err.flush();
        if (json) {
            json(out, which, tokens, limit, v);
        } else {
            text(out, tokens, limit, v);
        }
        out.flush();
        return 0;
    }

    /** Each text's token count, {@code [CLS]} and {@code [SEP]} included, before truncation. */
    private int[] tokenCounts(BertTokenizer tok) {
        return texts.stream().mapToInt(t -> tok.tokenize(t).size() + 2).toArray();
    }

    private static void warnTruncated(PrintWriter err, int maxLength, int[] tokens) {
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i] > maxLength) {
                err.println("rlx embed: warning: text [" + i + "] has " + tokens[i] + " tokens; only its first " + maxLength
                        + " are embedded" + (maxLength < MiniLm.MAX_POSITIONS ? " (--max-length takes up to "
                        + MiniLm.MAX_POSITIONS + ")" : " (the most the model takes)"));
            }
        }
    }

    private static String variant(MiniLm which) {
        return which == MiniLm.INT8 ? "int8" : "fp32";
    }

    private void text(PrintWriter out, int[] tokens, int limit, float[][] v) {
        for (int i = 0; i < v.length; i++) {
            String count = tokens[i] > limit ? limit + " of " + tokens[i] + " tokens" : tokens[i] + " tokens";
            out.printf(Locale.ROOT, "[%d] \"%s\" (%s)%n", i, echo(texts.get(i)), count);
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

    /**
     * A text as the text output shows it: line breaks and other control characters as escapes, so a text keeps
     * to one line, and one longer than {@link #ECHO_CHARS} characters cut to that length with "..." (the JSON
     * output has it whole).
     */
    static String echo(String text) {
        StringBuilder b = new StringBuilder();
        int cut = text.codePointCount(0, text.length()) > ECHO_CHARS ? text.offsetByCodePoints(0, ECHO_CHARS - 3) : text.length();
        for (int i = 0; i < cut; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (Character.isISOControl(c)) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        if (cut < text.length()) {
            b.append("...");
        }
        return b.toString();
    }

    private static String[] header(int n) {
        String[] h = new String[n + 1];
        h[0] = "";
        for (int j = 0; j < n; j++) {
            h[j + 1] = "[" + j + "]";
        }
        return h;
    }

    private void json(PrintWriter out, MiniLm which, int[] tokens, int limit, float[][] v) {
        JsonOut.write(out, false, g -> {
            g.writeStartObject();
            g.writeStringField("model", "all-MiniLM-L6-v2");
            g.writeStringField("variant", variant(which));
            g.writeNumberField("dimension", MiniLm.DIM);
            g.writeArrayFieldStart("texts");
            for (int i = 0; i < v.length; i++) {
                g.writeStartObject();
                g.writeStringField("text", texts.get(i));
                g.writeNumberField("tokens", Math.min(tokens[i], limit));
                g.writeBooleanField("truncated", tokens[i] > limit);
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
