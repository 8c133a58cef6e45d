package dev.rlx.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.onnx.embed.SentenceEmbedder;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code rlx serve}: the OpenAI HTTP API over RLX's sentence embedder and generation engine, on Helidon SE's
 * virtual-thread web server. Endpoints: {@code POST /v1/embeddings}, {@code POST /v1/completions},
 * {@code POST /v1/chat/completions}, {@code GET /v1/models}, {@code GET /health}, {@code GET /metrics}.
 *
 * <pre>{@code
 * try (RlxServer server = RlxServer.builder(ServeOptions.defaults().withPort(0))
 *         .embeddings("all-minilm-l6-v2", embedder).start()) {
 *     int port = server.port();
 * }
 * }</pre>
 *
 * <p>Every refusal is an OpenAI error object with its status (400, 401, 404, 413, 429 with {@code Retry-After},
 * 503 while shutting down). The server reads and writes no file on a request's behalf. It does not own the
 * embedder or engine it serves: the caller closes them after the server.
 */
public final class RlxServer implements AutoCloseable {
    /** A route's body: it writes the answer or throws an {@link ApiError}. */
    @FunctionalInterface
    interface Endpoint {
        void serve(ServerRequest req, ServerResponse res) throws Exception;
    }

    private final ServeOptions options;
    private final ServerMetrics metrics = new ServerMetrics();
    private final EmbeddingBatcher batcher;
    private final EmbeddingsEndpoint embeddings;
    private final CompletionsEndpoint completions;
    private final long created = System.currentTimeMillis() / 1000;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final byte[] apiKey;
    private final WebServer web;
    private volatile boolean closing;

    private RlxServer(Builder b) {
        this.options = b.options;
        this.apiKey = b.options.apiKey().map(k -> k.getBytes(StandardCharsets.UTF_8)).orElse(null);
        if (b.embedder != null) {
            this.batcher = new EmbeddingBatcher(b.embedder, options.embeddingBatch(), options.embeddingQueue(), metrics);
            this.embeddings = new EmbeddingsEndpoint(b.embeddingModel, dimensionsOf(b.embedder), batcher, metrics,
                    options.maxEmbeddingInputs());
        } else {
            this.batcher = null;
            this.embeddings = null;
        }
        this.completions = b.engine == null ? null
                : new CompletionsEndpoint(b.generationModel, b.engine, b.rawTemplate, metrics);
        metrics.gauge("rlx_http_in_flight", "Requests being answered.", inFlight::get);
        InetAddress address;
        try {
            address = InetAddress.getByName(options.host());
        } catch (UnknownHostException e) {
            throw new ServeException("rlx serve: unknown host '" + options.host() + "'", e);
        }
        try {
            this.web = WebServer.builder()
                    .address(address)
                    .port(options.port())
                    // Helidon's own bound (a plain 413) sits well above ours, so that ours (an OpenAI error)
                    // answers every body near the limit; it only bounds what is drained after our refusal
                    .maxPayloadSize(Math.min(Long.MAX_VALUE / 32, options.maxRequestBytes()) * 16)
                    .shutdownGracePeriod(java.time.Duration.ofMillis(500))
                    .shutdownHook(false)
                    .routing(this::routes)
                    .build()
                    .start();
        } catch (RuntimeException e) {
            if (batcher != null) {
                batcher.close();
            }
            throw new ServeException("rlx serve: could not listen on " + options.host() + ":" + options.port() + ": "
                    + e.getMessage(), e);
        }
    }

    public static Builder builder(ServeOptions options) {
        return new Builder(options);
    }

    /** What the server serves, set before {@link #start()}. */
    public static final class Builder {
        private final ServeOptions options;
        private String embeddingModel;
        private SentenceEmbedder embedder;
        private String generationModel;
        private LlmEngine engine;
        private String rawTemplate;

        private Builder(ServeOptions options) {
            this.options = options;
        }

        /** Serves {@code embedder} as the model {@code id} on {@code /v1/embeddings}. */
        public Builder embeddings(String id, SentenceEmbedder embedder) {
            this.embeddingModel = checkId(id);
            this.embedder = embedder;
            return this;
        }

        /**
         * Serves {@code engine} as the model {@code id} on {@code /v1/completions} and {@code /v1/chat/completions};
         * {@code rawTemplate} is the GGUF's {@code tokenizer.chat_template} text (it refines the Llama 2 format),
         * or null.
         */
        public Builder generation(String id, LlmEngine engine, String rawTemplate) {
            this.generationModel = checkId(id);
            this.engine = java.util.Objects.requireNonNull(engine, "engine");
            this.rawTemplate = rawTemplate;
            return this;
        }

        /** Binds the port and starts serving. */
        public RlxServer start() {
            if (embedder == null && engine == null) {
                throw new ServeException("rlx serve: nothing to serve; give an embedding model, a generation model or both");
            }
            return new RlxServer(this);
        }
    }

    static String checkId(String id) {
        if (id == null || id.isBlank() || id.length() > 256) {
            throw new ServeException("rlx serve: a model id must be 1 to 256 characters but is '" + id + "'");
        }
        return id;
    }

    private static int dimensionsOf(SentenceEmbedder embedder) {
        // one small run: the width, and the first compiled shape warm before the first request
        return embedder.embed(List.of("dimensions"))[0].length;
    }

    /** The port the server listens on (the free one chosen when the options said 0). */
    public int port() {
        return web.port();
    }

    public ServerMetrics metrics() {
        return metrics;
    }

    private void routes(HttpRouting.Builder r) {
        r.get("/health", (req, res) -> json(res, closing ? 503 : 200, health()));
        r.get("/metrics", (req, res) -> {
            res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
            res.send(metrics.scrape().getBytes(StandardCharsets.UTF_8));
        });
        r.get("/v1/models", guarded("models", (req, res) -> json(res, 200, models())));
        r.get("/v1/models/{id}", guarded("models", (req, res) -> json(res, 200, model(req.path().pathParameters().get("id")))));
        if (embeddings != null) {
            r.post("/v1/embeddings", guarded("embeddings",
                    (req, res) -> json(res, 200, embeddings.handle(Json.parseObject(Bodies.read(req, options.maxRequestBytes()))))));
        }
        if (completions != null) {
            r.post("/v1/completions", guarded("completions",
                    (req, res) -> completions.complete(Json.parseObject(Bodies.read(req, options.maxRequestBytes())), res, false)));
            r.post("/v1/chat/completions", guarded("chat_completions",
                    (req, res) -> completions.complete(Json.parseObject(Bodies.read(req, options.maxRequestBytes())), res, true)));
        }
        r.any(guarded("unknown", (req, res) -> {
            throw ApiError.notFound("no endpoint " + req.prologue().method().text() + " " + req.path().path(), null,
                    "unknown_url");
        }));
    }

    /** The route wrapped with the API-key check, the in-flight count, the metrics and the error object. */
    private io.helidon.webserver.http.Handler guarded(String name, Endpoint endpoint) {
        return (req, res) -> {
            long start = System.nanoTime();
            inFlight.incrementAndGet();
            try {
                if (closing) {
                    throw ApiError.unavailable("the server is shutting down");
                }
                checkKey(req);
                endpoint.serve(req, res);
            } catch (ApiError e) {
                error(res, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                error(res, ApiError.unavailable("the request was interrupted"));
            } catch (UncheckedIOException e) {
                // the client went away mid-answer: nothing more can reach it
            } catch (Exception e) {
                error(res, ApiError.internal(e.getClass().getSimpleName() + ": " + e.getMessage()));
            } finally {
                inFlight.decrementAndGet();
                metrics.request(name, res.status().code());
                metrics.requestDuration.observe((System.nanoTime() - start) / 1e9);
            }
        };
    }

    private void checkKey(ServerRequest req) {
        if (apiKey == null) {
            return;
        }
        String auth = req.headers().first(HeaderNames.AUTHORIZATION).orElse("");
        byte[] given = auth.startsWith("Bearer ") ? auth.substring(7).trim().getBytes(StandardCharsets.UTF_8) : new byte[0];
        // constant-time, so the key cannot be found a byte at a time from answer times
        if (!MessageDigest.isEqual(given, apiKey)) {
            throw ApiError.unauthorized(auth.isEmpty()
                    ? "you did not provide an API key; send it as 'Authorization: Bearer <key>'"
                    : "the API key provided is not this server's");
        }
    }

    static void json(ServerResponse res, int status, ObjectNode body) {
        res.status(status);
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        res.send(Json.bytes(body));
    }

    static void error(ServerResponse res, ApiError e) {
        if (res.isSent()) {
            return;
        }
        if (e.retryAfterSeconds() > 0) {
            res.header(HeaderNames.RETRY_AFTER, Long.toString(e.retryAfterSeconds()));
        }
        json(res, e.status(), Json.error(e));
    }

    private ObjectNode health() {
        ObjectNode o = Json.object();
        o.put("status", closing ? "shutting_down" : "ok");
        return o;
    }

    private List<String> modelIds() {
        List<String> ids = new ArrayList<>();
        if (completions != null) {
            ids.add(completions.modelId());
        }
        if (embeddings != null) {
            ids.add(embeddings.modelId());
        }
        return ids;
    }

    private ObjectNode models() {
        ObjectNode o = Json.object();
        o.put("object", "list");
        ArrayNode data = o.putArray("data");
        for (String id : modelIds()) {
            data.add(modelObject(id));
        }
        return o;
    }

    private ObjectNode model(String id) {
        if (!modelIds().contains(id)) {
            throw ApiError.notFound("the model '" + id + "' does not exist", "model", "model_not_found");
        }
        return modelObject(id);
    }

    private ObjectNode modelObject(String id) {
        ObjectNode m = Json.object();
        m.put("id", id);
        m.put("object", "model");
        m.put("created", created);
        m.put("owned_by", "rlx");
        return m;
    }

    /**
     * Graceful shutdown: new requests get 503 at once; those in flight get {@link ServeOptions#shutdownGrace()}
     * to finish, then running generations are cancelled (their streams end with the finish reason they had) and
     * the listener closes.
     */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        long deadline = System.nanoTime() + options.shutdownGrace().toNanos();
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (completions != null) {
            completions.cancelAll();
        }
        long cancelDeadline = System.nanoTime() + 5_000_000_000L;
        while (inFlight.get() > 0 && System.nanoTime() < cancelDeadline) {
            Thread.onSpinWait();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        web.stop();
        if (batcher != null) {
            batcher.close();
        }
    }
}
