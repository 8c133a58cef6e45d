package dev.rlx.serve;

import java.time.Duration;
import java.util.Optional;

/**
 * How {@link RlxServer} listens and what it accepts.
 *
 * @param host                  the address to bind; loopback by default, so a server is public only when asked
 * @param port                  the TCP port; 0 takes a free one ({@link RlxServer#port()} says which)
 * @param apiKey                when present, every {@code /v1/} request must carry {@code Authorization: Bearer <key>}
 * @param maxRequestBytes       larger request bodies are refused with 413 before they are parsed
 * @param maxEmbeddingInputs    texts one embeddings request may hold (OpenAI's limit is 2048)
 * @param embeddingBatch        texts the batcher puts into one encoder run at most
 * @param embeddingQueue        texts waiting for the encoder at most; beyond, 429 with {@code Retry-After}
 * @param shutdownGrace         how long {@link RlxServer#close()} lets in-flight requests finish before it cancels them
 */
public record ServeOptions(String host, int port, Optional<String> apiKey, long maxRequestBytes, int maxEmbeddingInputs,
                           int embeddingBatch, int embeddingQueue, Duration shutdownGrace) {
    public ServeOptions {
        if (host == null || host.isBlank()) {
            throw new ServeException("ServeOptions: host must be an address or name but is '" + host + "'");
        }
        if (port < 0 || port > 65535) {
            throw new ServeException("ServeOptions: port must be in [0, 65535] but is " + port);
        }
        apiKey = apiKey == null ? Optional.empty() : apiKey.filter(k -> !k.isEmpty());
        check("maxRequestBytes", maxRequestBytes, 1024, 1L << 30);
        check("maxEmbeddingInputs", maxEmbeddingInputs, 1, 1 << 16);
        check("embeddingBatch", embeddingBatch, 1, 1024);
        check("embeddingQueue", embeddingQueue, 1, 1 << 20);
        if (shutdownGrace == null || shutdownGrace.isNegative()) {
            throw new ServeException("ServeOptions: shutdownGrace must be >= 0 but is " + shutdownGrace);
        }
    }

    private static void check(String name, long v, long min, long max) {
        if (v < min || v > max) {
            throw new ServeException("ServeOptions: " + name + " must be in [" + min + ", " + max + "] but is " + v);
        }
    }

    /** Loopback, port 8080, no key, 4 MiB bodies, 2048 inputs, batches of 32, 4096 queued texts, 10 s grace. */
    public static ServeOptions defaults() {
        return new ServeOptions("127.0.0.1", 8080, Optional.empty(), 4L << 20, 2048, 32, 4096, Duration.ofSeconds(10));
    }

    public ServeOptions withHost(String v) {
        return new ServeOptions(v, port, apiKey, maxRequestBytes, maxEmbeddingInputs, embeddingBatch, embeddingQueue, shutdownGrace);
    }

    public ServeOptions withPort(int v) {
        return new ServeOptions(host, v, apiKey, maxRequestBytes, maxEmbeddingInputs, embeddingBatch, embeddingQueue, shutdownGrace);
    }

    public ServeOptions withApiKey(String v) {
        return new ServeOptions(host, port, Optional.ofNullable(v), maxRequestBytes, maxEmbeddingInputs, embeddingBatch,
                embeddingQueue, shutdownGrace);
    }

    public ServeOptions withMaxRequestBytes(long v) {
        return new ServeOptions(host, port, apiKey, v, maxEmbeddingInputs, embeddingBatch, embeddingQueue, shutdownGrace);
    }

    public ServeOptions withMaxEmbeddingInputs(int v) {
        return new ServeOptions(host, port, apiKey, maxRequestBytes, v, embeddingBatch, embeddingQueue, shutdownGrace);
    }

    public ServeOptions withEmbeddingBatch(int v) {
        return new ServeOptions(host, port, apiKey, maxRequestBytes, maxEmbeddingInputs, v, embeddingQueue, shutdownGrace);
    }

    public ServeOptions withEmbeddingQueue(int v) {
        return new ServeOptions(host, port, apiKey, maxRequestBytes, maxEmbeddingInputs, embeddingBatch, v, shutdownGrace);
    }

    public ServeOptions withShutdownGrace(Duration v) {
        return new ServeOptions(host, port, apiKey, maxRequestBytes, maxEmbeddingInputs, embeddingBatch, embeddingQueue, v);
    }
}
