package dev.rlx.cli;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufArray;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.gguf.GgufTensor;
import dev.rlx.llm.gguf.GgufValue;
import dev.rlx.llm.model.SyntheticLlama;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rlx gguf FILE}: a GGUF file's metadata and tensors; {@code rlx gguf synth OUT}: a synthetic model. */
@Command(name = "gguf", mixinStandardHelpOptions = true, subcommands = GgufCommand.Synth.class,
        description = {"Print a GGUF file's version, metadata and tensors (long arrays are summarised).",
                "'rlx gguf synth OUT' writes a llama-family model with random weights instead."})
final class GgufCommand implements Callable<Integer> {
    // optional so that 'rlx gguf synth ...' parses; required when no subcommand is given
    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE", description = "The .gguf file.")
    Path file;

    @Option(names = "--max-array", defaultValue = "8", description = "Array elements shown (default ${DEFAULT-VALUE}).")
    int maxArray;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (file == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: 'FILE'");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (GgufFile f = GgufFile.open(file)) {
            out.printf(Locale.ROOT, "%s: GGUF v%d, %d bytes, alignment %d, data from byte %d%n", file, f.version(),
                    f.fileBytes(), f.alignment(), f.dataStart());
            out.printf(Locale.ROOT, "metadata (%d keys)%n", f.metadata().keys().size());
            for (Map.Entry<String, GgufValue> e : f.metadata().asMap().entrySet()) {
                out.printf(Locale.ROOT, "  %-40s %s%n", e.getKey(), show(e.getValue(), maxArray));
            }
            long params = 0;
            out.printf(Locale.ROOT, "tensors (%d)%n", f.tensors().size());
            for (GgufTensor t : f.tensors()) {
                params += t.elementCount();
                out.printf(Locale.ROOT, "  %-32s %-5s %-22s offset %d, %d bytes%n", t.name(), t.type(),
                        Arrays.toString(t.dims()), t.offset(), t.data().byteSize());
            }
            out.printf(Locale.ROOT, "%d parameters%n", params);
        }
        out.flush();
        return 0;
    }

    static String show(GgufValue v, int maxArray) {
        return switch (v.type()) {
            case STRING -> quote((String) v.value(), 200);
            case ARRAY -> {
                GgufArray a = (GgufArray) v.value();
                StringBuilder sb = new StringBuilder(a.elementType() + "[" + a.size() + "] [");
                for (int i = 0; i < Math.min(a.size(), maxArray); i++) {
                    sb.append(i == 0 ? "" : ", ").append(switch (a.elementType()) {
                        case STRING -> quote(a.asStrings()[i], 40);
                        case FLOAT32, FLOAT64 -> String.valueOf(a.getDouble(i));
                        case ARRAY -> ((GgufArray[]) a.values())[i].toString();
                        default -> Long.toString(a.getLong(i));
                    });
                }
                yield sb.append(a.size() > maxArray ? ", ...]" : "]").toString();
            }
            case UINT64 -> v.type() + " " + Long.toUnsignedString((Long) v.value());
            default -> v.type() + " " + v.value();
        };
    }

    private static String quote(String s, int max) {
        String t = s.length() > max ? s.substring(0, max) + "..." : s;
        return "\"" + t.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "\"";
    }

    /** {@code rlx gguf synth OUT}: a random-weight llama-family model of a chosen size and weight type. */
    @Command(name = "synth", mixinStandardHelpOptions = true,
            description = {"Write a llama-family GGUF with random weights (for tests and benchmarks: no trained",
                    "model is needed). --size picks a preset; the other options override its fields."})
    static final class Synth implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "OUT", description = "The .gguf file to write.")
        Path out;

        @Option(names = "--size", defaultValue = "tiny", description = "Preset: tiny (~0.5M params), 100m or 1b "
                + "(Llama-3.2-1B-like shapes). Default ${DEFAULT-VALUE}.")
        String size;

        @Option(names = "--type", defaultValue = "q8_0", description = "Weight type: f32, f16, bf16, q8_0, q4_0, "
                + "q4_1, q5_0, q5_1. Default ${DEFAULT-VALUE}.")
        String type;

        @Option(names = "--arch", description = "llama, qwen2 (q/k/v biases, qwen2 vocabulary) or qwen3 (RMSNorm"
                + " of each query and key head, qwen2 vocabulary).")
        String arch;

        @Option(names = "--vocab", description = "spm, or a BPE pre-tokenizer: llama-bpe, qwen2, smollm, gpt-2, default.")
        String vocab;

        @Option(names = "--dim", description = "Embedding width.")
        Integer dim;

        @Option(names = "--layers", description = "Decoder blocks.")
        Integer layers;

        @Option(names = "--heads", description = "Attention heads.")
        Integer heads;

        @Option(names = "--kv-heads", description = "KV heads (GQA).")
        Integer kvHeads;

        @Option(names = "--ffn", description = "Feed-forward width.")
        Integer ffn;

        @Option(names = "--head-dim", description = "Size of one head (default: width / heads).")
        Integer headDim;

        @Option(names = "--tied", description = "Tie the output matrix to the embedding.")
        boolean tied;

        @Option(names = "--seed", defaultValue = "42", description = "Random seed (default ${DEFAULT-VALUE}).")
        long seed;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            GgmlType t;
            try {
                t = GgmlType.valueOf(type.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--type " + type
                        + " is not a weight type (f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1)");
            }
            if (!t.encodable()) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--type " + type
                        + " can be read but not written (K-quants)");
            }
            SyntheticLlama base = switch (size) {
                case "tiny" -> SyntheticLlama.tiny(t);
                case "100m" -> new SyntheticLlama("llama", "llama-bpe", 300, 768, 12, 12, 4, 2048, 2048, t, true, 0,
                        seed);
                // Llama 3.2 1B: 2048 wide, 16 blocks, 32 heads over 8 KV heads, 8192 FFN; its 128k vocabulary
                // replaced by a small generated one, so the parameters are in the blocks (~0.97B)
                case "1b" -> new SyntheticLlama("llama", "llama-bpe", 300, 2048, 16, 32, 8, 8192, 4096, t, true, 0,
                        seed);
                default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--size " + size
                        + " (tiny, 100m, 1b)");
            };
            String a = arch != null ? arch : base.architecture();
            String v = vocab != null ? vocab : a.startsWith("qwen") ? "qwen2" : base.vocab();
            SyntheticLlama s;
            try {
                s = new SyntheticLlama(a, v, v.equals("spm") ? Math.max(base.vocabSize(), 600)
                    : base.vocabSize(), orElse(dim, base.dim()), orElse(layers, base.layers()),
                    orElse(heads, base.heads()), orElse(kvHeads, base.kvHeads()), orElse(ffn, base.ffnDim()),
                    base.contextLength(), t, tied || base.tiedEmbeddings(), 0, seed, orElse(headDim, 0));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            long bytes = s.write(out);
            PrintWriter w = spec.commandLine().getOut();
            w.printf(Locale.ROOT, "%s: %s, %s weights, dim %d, %d layers, %d/%d heads of %d, ffn %d, %d bytes%n",
                    out, s.architecture(), t, s.dim(), s.layers(), s.heads(), s.kvHeads(), s.headSize(), s.ffnDim(),
                    bytes);
            w.flush();
            return 0;
        }

        private static int orElse(Integer v, int d) {
            return v != null ? v : d;
        }
    }
}
