package dev.rlx.cli;

import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.llm.engine.EngineOptions;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.onnx.text.BertTokenizer;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.serve.RlxServer;
import dev.rlx.serve.ServeOptions;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code rlx serve}: the OpenAI HTTP API over a GGUF model and/or a sentence encoder, until stopped. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve the OpenAI HTTP API: /v1/completions and /v1/chat/completions over a llama-family GGUF",
                "model (continuous batching), /v1/embeddings over MiniLM or an ONNX sentence encoder, /v1/models,",
                "/health and /metrics (Prometheus). Listens on loopback unless --host says otherwise; Ctrl-C",
                "finishes or cancels the requests in flight and stops."})
final class ServeCommand implements Callable<Integer> {
    @Option(names = "--model", paramLabel = "FILE", description = "The .gguf generation model.")
    Path model;

    @Option(names = "--embedding-model", paramLabel = "MODEL", description = "minilm, minilm-int8 or an .onnx "
            + "sentence encoder (BERT inputs; its tokenizer.json beside it or in --embedding-tokenizer).")
    String embeddingModel;

    @Option(names = "--embedding-tokenizer", paramLabel = "FILE", description = "tokenizer.json of an .onnx encoder.")
    Path embeddingTokenizer;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "8080", description = "TCP port; 0 = a free one (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--api-key", description = "Require 'Authorization: Bearer KEY' on /v1/ (default: $RLX_API_KEY,"
            + " else none).")
    String apiKey;

    @Option(names = "--max-batch-tokens", defaultValue = "512", description = "Tokens per engine step at most "
            + "(decodes plus prefill chunks; default ${DEFAULT-VALUE}).")
    int maxBatchTokens;

    @Option(names = "--max-sequences", defaultValue = "16", description = "Sequences running at once at most "
            + "(default ${DEFAULT-VALUE}).")
    int maxSequences;

    @Option(names = "--queue", defaultValue = "256", description = "Requests waiting at most; more get 429 "
            + "(default ${DEFAULT-VALUE}).")
    int queue;

    @Option(names = "--kv", defaultValue = "f16", description = "KV cache storage: f32, f16, q8_0, q5_0 or q4_0 "
            + "(default ${DEFAULT-VALUE}).")
    String kv;

    @Option(names = "--ctx", defaultValue = "0", description = "Context length per request; 0 = the model's.")
    int context;

    @Option(names = "--threads", description = "CPU threads of the model (default: all cores).")
    Integer threads;

    @Option(names = "--max-request-bytes", defaultValue = "4194304", description = "Largest request body "
            + "(default ${DEFAULT-VALUE}).")
    long maxRequestBytes;

    @Spec
    CommandSpec spec;

    /** A started server and what it serves; closing stops the server first, then the models. */
    static final class Running implements AutoCloseable {
        private final List<AutoCloseable> resources = new ArrayList<>(); // closed in reverse order
        RlxServer server;

        int port() {
            return server.port();
        }

        @Override
        public void close() {
            for (int i = resources.size() - 1; i >= 0; i--) {
                try {
                    resources.get(i).close();
                } catch (Exception e) {
                    // the others still close
                }
            }
            resources.clear();
        }
    }

    @Override
    public Integer call() throws Exception {
        Running running = start();
        PrintWriter err = spec.commandLine().getErr();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.close();
            stopped.countDown();
        }, "rlx-serve-shutdown"));
        err.printf(Locale.ROOT, "rlx serve: listening on http://%s:%d/v1 (Ctrl-C stops)%n", host, running.port());
        err.flush();
        stopped.await();
        return 0;
    }

    /** Loads the models and starts the server (what {@link #call()} does before it waits). */
    Running start() throws Exception {
        if (model == null && embeddingModel == null) {
            throw new ParameterException(spec.commandLine(), "give --model, --embedding-model or both");
        }
        OptionChecks.atLeast(spec, "--max-batch-tokens", maxBatchTokens, 1);
        OptionChecks.atLeast(spec, "--max-sequences", maxSequences, 1);
        OptionChecks.atLeast(spec, "--queue", queue, 1);
        OptionChecks.atLeast(spec, "--ctx", context, 0);
        OptionChecks.between(spec, "--port", port, 0, 65535);
        if (threads != null) {
            OptionChecks.atLeast(spec, "--threads", threads, 1);
        }
        String key = apiKey != null ? apiKey : System.getenv("RLX_API_KEY");
        ServeOptions options = ServeOptions.defaults().withHost(host).withPort(port).withApiKey(key)
                .withMaxRequestBytes(maxRequestBytes);
        BlockFormat storage = kvFormat();
        Running r = new Running();
        try {
            RlxServer.Builder b = RlxServer.builder(options);
            if (embeddingModel != null) {
                Session session = new Session(Device.CPU);
                r.resources.add(session);
                SentenceEmbedder e = embedder(session);
                r.resources.add(e);
                b.embeddings(embeddingId(), e);
            }
            if (model != null) {
                EngineOptions eo = EngineOptions.defaults().withKvStorage(storage).withMaxSequences(maxSequences)
                        .withMaxBatchTokens(maxBatchTokens).withQueueCapacity(queue).withContextLength(context);
                if (threads != null) {
                    eo = eo.withThreads(threads);
                }
                LlmEngine engine = LlmEngine.open(model, eo);
                r.resources.add(engine);
                String raw;
                try (GgufFile f = GgufFile.open(model)) {
                    raw = f.metadata().getString("tokenizer.chat_template", null);
                }
                b.generation(modelId(engine), engine, raw);
            }
            r.server = b.start();
            r.resources.add(r.server);
            return r;
        } catch (Exception | Error e) {
            r.close();
            throw e;
        }
    }

    /** The GGUF's file name without {@code .gguf}: what clients put in "model". */
    private String modelId(LlmEngine engine) {
        String name = model.getFileName().toString();
        return name.endsWith(".gguf") ? name.substring(0, name.length() - 5) : name;
    }

    private String embeddingId() {
        return switch (embeddingModel.toLowerCase(Locale.ROOT)) {
            case "minilm" -> "all-minilm-l6-v2";
            case "minilm-int8" -> "all-minilm-l6-v2-int8";
            default -> {
                String n = Path.of(embeddingModel).getFileName().toString();
                yield n.endsWith(".onnx") ? n.substring(0, n.length() - 5) : n;
            }
        };
    }

    private SentenceEmbedder embedder(Session session) {
        switch (embeddingModel.toLowerCase(Locale.ROOT)) {
            case "minilm" -> {
                return SentenceEmbedder.of(MiniLm.FP32, session);
            }
            case "minilm-int8" -> {
                return SentenceEmbedder.of(MiniLm.INT8, session);
            }
            default -> {
                Path onnx = Path.of(embeddingModel);
                if (!Files.isRegularFile(onnx)) {
                    throw new ParameterException(spec.commandLine(), "--embedding-model must be minilm, minilm-int8"
                            + " or an .onnx file, but " + onnx + " is none");
                }
                Path tok = embeddingTokenizer != null ? embeddingTokenizer
                        : onnx.toAbsolutePath().getParent().resolve("tokenizer.json");
                if (!Files.isRegularFile(tok)) {
                    throw new ParameterException(spec.commandLine(), "no tokenizer for " + onnx + ": " + tok
                            + " does not exist; give --embedding-tokenizer");
                }
                return new SentenceEmbedder(OnnxModel.load(onnx), BertTokenizer.read(tok), session);
            }
        }
    }

    private BlockFormat kvFormat() {
        List<String> allowed = List.of("f32", "f16", "q8_0", "q5_0", "q4_0");
        String k = kv.toLowerCase(Locale.ROOT);
        if (!allowed.contains(k)) {
            throw new ParameterException(spec.commandLine(), "--kv must be f32, f16, q8_0, q5_0 or q4_0 but is '"
                    + kv + "'");
        }
        return BlockFormat.valueOf(k.toUpperCase(Locale.ROOT));
    }
}
