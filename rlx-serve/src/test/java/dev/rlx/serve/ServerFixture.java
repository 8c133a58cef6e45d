package dev.rlx.serve;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.llm.engine.EngineOptions;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.model.SyntheticLlama;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/** What the server tests share: a synthetic ChatML model, raw HTTP calls with timeouts, the metrics page. */
final class ServerFixture {
    static final Duration TIMEOUT = Duration.ofSeconds(20);
    static final String MODEL = "rlx-synthetic";
    static final String EMBEDDING_MODEL = "all-minilm-l6-v2";
    static final String KEY = "test-key";

    /** A qwen2-style model with a ChatML template (context 2048), written by the project's GGUF writer. */
    static final SyntheticLlama SPEC = new SyntheticLlama("qwen2", "qwen2", 300, 128, 2, 4, 2, 352, 2048,
            GgmlType.F32, false, 0, 42);

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1).build();

    private ServerFixture() {}

    static Path writeModel(Path dir) throws IOException {
        Path p = dir.resolve("serve-test.gguf");
        SPEC.write(p);
        return p;
    }

    static EngineOptions engineOptions(int maxSequences, int queueCapacity) {
        return EngineOptions.defaults().withThreads(1).withKvStorage(BlockFormat.F32).withMaxSequences(maxSequences)
                .withMaxBatchTokens(128).withQueueCapacity(queueCapacity);
    }

    static LlmEngine engine(Path gguf, int maxSequences, int queueCapacity) throws IOException {
        return LlmEngine.open(gguf, engineOptions(maxSequences, queueCapacity));
    }

    static String rawTemplate(Path gguf) {
        try (GgufFile f = GgufFile.open(gguf)) {
            return f.metadata().getString("tokenizer.chat_template", null);
        }
    }

    static HttpResponse<String> post(int port, String path, String body, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(int port, String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(TIMEOUT).GET();
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(String s) throws IOException {
        return Json.MAPPER.readTree(s);
    }

    /** A value of {@code /metrics} (an unlabelled sample). */
    static double metric(int port, String name) throws Exception {
        String text = get(port, "/metrics", null).body();
        for (String line : text.split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        fail("no metric " + name + " in\n" + text);
        return Double.NaN;
    }

    /** Waits (at most 10 s) until every KV block is free and no sequence runs, as the metrics show. */
    static void awaitKvFree(int port) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        double free = 0;
        double total = -1;
        double running = -1;
        while (System.nanoTime() < deadline) {
            free = metric(port, "rlx_kv_blocks_free");
            total = metric(port, "rlx_kv_blocks_total");
            running = metric(port, "rlx_running_sequences");
            if (free == total && running == 0) {
                return;
            }
            Thread.sleep(20);
        }
        fail("KV blocks free " + free + " of " + total + ", running " + running + " after 10 s");
    }
}
