package dev.rlx.cli;

import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.llm.engine.EngineException;
import dev.rlx.llm.engine.EngineOptions;
import dev.rlx.llm.engine.Generation;
import dev.rlx.llm.engine.GenerationRequest;
import dev.rlx.llm.engine.GenerationResult;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.llm.engine.TokenEvent;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.sample.SampleOpts;
import dev.rlx.llm.sample.Samplers;
import dev.rlx.llm.tokenizer.ChatTemplate;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rlx generate FILE PROMPT}: streams a GGUF model's continuation of a prompt, then its speed. */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generate text with a llama-family GGUF model: the text streams to standard output, then",
                "one line on standard error gives prefill and decode tokens/s."})
final class GenerateCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The .gguf model.")
    Path file;

    @Parameters(index = "1", paramLabel = "PROMPT", description = "The prompt (the user message with --chat).")
    String prompt;

    @Option(names = "--max-tokens", defaultValue = "128", description = "Tokens to generate at most (default "
            + "${DEFAULT-VALUE}; fewer when the context ends first).")
    int maxTokens;

    @Option(names = "--temp", defaultValue = "0.8", description = "Temperature; 0 = greedy (default ${DEFAULT-VALUE}).")
    float temperature;

    @Option(names = "--top-k", defaultValue = "40", description = "Top-k, 0 = off (default ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--top-p", defaultValue = "0.95", description = "Top-p, 1 = off (default ${DEFAULT-VALUE}).")
    float topP;

    @Option(names = "--seed", description = "Sampling seed, 0..4294967294 (default: random).")
    Long seed;

    @Option(names = "--threads", description = "CPU threads (default: all cores).")
    Integer threads;

    @Option(names = "--kv", defaultValue = "f16", description = "KV cache storage: f32, f16, q8_0, q5_0 or q4_0 "
            + "(default ${DEFAULT-VALUE}).")
    String kv;

    @Option(names = "--ctx", defaultValue = "0", description = "Context length; 0 = the model's, capped at 4096.")
    int context;

    @Option(names = "--chat", description = "Wrap the prompt in the model's chat template (tokenizer.chat_template).")
    boolean chat;

    @Option(names = "--system", description = "A system message (with --chat).")
    String system;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        OptionChecks.atLeast(spec, "--max-tokens", maxTokens, 1);
        OptionChecks.atLeast(spec, "--top-k", topK, 0);
        OptionChecks.atLeast(spec, "--ctx", context, 0);
        if (threads != null) {
            OptionChecks.atLeast(spec, "--threads", threads, 1);
        }
        if (system != null && !chat) {
            throw new ParameterException(spec.commandLine(), "--system needs --chat");
        }
        BlockFormat storage = kvFormat();
        SampleOpts sampling = samplingOptions();
        EngineOptions options = EngineOptions.defaults().withKvStorage(storage).withMaxSequences(1)
                .withContextLength(context);
        if (threads != null) {
            options = options.withThreads(threads);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (LlmEngine engine = LlmEngine.open(file, options)) {
            int[] tokens = engine.tokenizer().encode(chat ? chatText(engine) : prompt, true, true);
            int room = engine.info().contextLength() - tokens.length;
            if (room < 1) {
                throw new EngineException(EngineException.Reason.CONTEXT_EXCEEDED, String.format(Locale.ROOT,
                        "the prompt has %d tokens but the context length is %d", tokens.length,
                        engine.info().contextLength()));
            }
            Generation g = engine.submit(GenerationRequest.of(tokens, Math.min(maxTokens, room))
                    .withSampling(sampling));
            for (TokenEvent e; (e = g.next()) != null; ) {
                if (!e.text().isEmpty()) {
                    out.print(e.text());
                    out.flush();
                }
            }
            out.println();
            out.flush();
            GenerationResult r = g.await();
            err.println(speedLine(r));
            err.flush();
        }
        return 0;
    }

    /** Prefill: prompt tokens over the time to the first token; decode: the other tokens over the rest. */
    static String speedLine(GenerationResult r) {
        double prefillS = (r.firstTokenNanos() - r.queuedNanos()) / 1e9;
        double decodeS = (r.totalNanos() - r.firstTokenNanos()) / 1e9;
        int decoded = Math.max(0, r.completionTokens() - 1);
        return String.format(Locale.ROOT, "prefill %d tokens in %.3f s (%.1f tokens/s), decode %d tokens in %.3f s"
                        + " (%.1f tokens/s), finish %s", r.promptTokens(), prefillS, r.promptTokens() / prefillS,
                decoded, decodeS, decoded == 0 ? 0 : decoded / decodeS, r.finish().name().toLowerCase(Locale.ROOT));
    }

    private String chatText(LlmEngine engine) {
        ChatTemplate t = engine.info().chatTemplate().orElseThrow(() -> new EngineException(
                EngineException.Reason.INVALID_REQUEST, file + " has no tokenizer.chat_template RLX knows (ChatML,"
                        + " Llama 2, Llama 3); leave out --chat"));
        String raw;
        try (GgufFile f = GgufFile.open(file)) {
            raw = f.metadata().getString("tokenizer.chat_template", "");
        }
        List<ChatTemplate.Message> messages = new ArrayList<>();
        if (system != null) {
            messages.add(new ChatTemplate.Message("system", system));
        }
        messages.add(new ChatTemplate.Message("user", prompt));
        return t.render(messages, true, raw);
    }

    private BlockFormat kvFormat() {
        return switch (kv.toLowerCase(Locale.ROOT)) {
            case "f32" -> BlockFormat.F32;
            case "f16" -> BlockFormat.F16;
            case "q8_0" -> BlockFormat.Q8_0;
            case "q5_0" -> BlockFormat.Q5_0;
            case "q4_0" -> BlockFormat.Q4_0;
            default -> throw new ParameterException(spec.commandLine(), "--kv must be f32, f16, q8_0, q5_0 or q4_0"
                    + " but is '" + kv + "'");
        };
    }

    private SampleOpts samplingOptions() {
        long s = seed == null ? Samplers.RANDOM_SEED : seed;
        if (seed != null && (s < 0 || s >= Samplers.RANDOM_SEED)) {
            throw new ParameterException(spec.commandLine(), "--seed must be 0..4294967294 but is " + seed);
        }
        if (!(topP > 0 && topP <= 1) || !(temperature >= 0)) {
            throw new ParameterException(spec.commandLine(), "--top-p must be in (0, 1] and --temp >= 0 but they are "
                    + topP + " and " + temperature);
        }
        SampleOpts.Builder b = SampleOpts.defaults().toBuilder().seed(s).temperature(temperature).topK(topK)
                .topP(topP);
        return temperature == 0 ? SampleOpts.greedy() : b.build();
    }
}
