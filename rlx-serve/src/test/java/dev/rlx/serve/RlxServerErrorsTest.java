package dev.rlx.serve;

import static dev.rlx.serve.ServerFixture.KEY;
import static dev.rlx.serve.ServerFixture.MODEL;
import static dev.rlx.serve.ServerFixture.get;
import static dev.rlx.serve.ServerFixture.json;
import static dev.rlx.serve.ServerFixture.metric;
import static dev.rlx.serve.ServerFixture.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rlx.llm.engine.LlmEngine;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Refusals over raw HTTP: each is an OpenAI error object with the right status and never a 500; a streaming
 * client that disconnects frees its KV blocks; a full queue answers 429 with Retry-After; closing the server ends
 * in-flight streams and does not hang.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RlxServerErrorsTest {
    @TempDir
    static Path dir;

    private static Path gguf;
    private static LlmEngine engine;
    private static RlxServer server;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        gguf = ServerFixture.writeModel(dir);
        engine = ServerFixture.engine(gguf, 4, 16);
        server = RlxServer.builder(ServeOptions.defaults().withPort(0).withApiKey(KEY).withMaxRequestBytes(64 * 1024))
                .generation(MODEL, engine, ServerFixture.rawTemplate(gguf)).start();
        port = server.port();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    /** The status and that the body is {@code {"error": {message, type, param, code}}}; returns the error. */
    private static JsonNode refused(HttpResponse<String> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        JsonNode e = json(r.body()).get("error");
        assertTrue(e != null && e.get("message").isTextual() && !e.get("message").asText().isEmpty(), r.body());
        assertTrue(e.get("type").isTextual(), r.body());
        assertTrue(e.has("param") && e.has("code"), r.body());
        return e;
    }

    @Test
    void badJson_is400() throws Exception {
        JsonNode e = refused(post(port, "/v1/completions", "{\"model\": ", KEY), 400);
        assertEquals("invalid_request_error", e.get("type").asText());
        refused(post(port, "/v1/completions", "[1, 2]", KEY), 400);
    }

    @Test
    void unknownModel_is404WithModelNotFound() throws Exception {
        JsonNode e = refused(post(port, "/v1/chat/completions",
                "{\"model\": \"gpt-4\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", KEY), 404);
        assertEquals("model_not_found", e.get("code").asText());
        assertEquals("model", e.get("param").asText());
        // no embedding model was given: that route does not exist here
        refused(post(port, "/v1/embeddings", "{\"model\": \"m\", \"input\": \"x\"}", KEY), 404);
    }

    @Test
    void promptLongerThanTheContext_is400ContextLengthExceeded() throws Exception {
        StringJoiner ids = new StringJoiner(",", "[", "]");
        for (int i = 0; i < 2100; i++) {
            ids.add(Integer.toString(3 + i % 200));
        }
        JsonNode e = refused(post(port, "/v1/completions",
                "{\"model\": \"" + MODEL + "\", \"prompt\": " + ids + "}", KEY), 400);
        assertEquals("context_length_exceeded", e.get("code").asText());
        // a short prompt asking for more tokens than the context leaves is the same refusal
        e = refused(post(port, "/v1/completions",
                "{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", \"max_tokens\": 100000}", KEY), 400);
        assertEquals("context_length_exceeded", e.get("code").asText());
    }

    @Test
    void missingOrWrongKey_is401() throws Exception {
        String body = "{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", \"max_tokens\": 2}";
        assertEquals("invalid_api_key", refused(post(port, "/v1/completions", body, null), 401).get("code").asText());
        refused(post(port, "/v1/completions", body, "not-the-key"), 401);
        refused(get(port, "/v1/models", null), 401);
        assertEquals(200, get(port, "/health", null).statusCode(), "health needs no key");
    }

    @Test
    void outOfRangeFields_are400NamingTheField() throws Exception {
        String[][] cases = {
            {"\"temperature\": 3", "temperature"},
            {"\"top_p\": 0", "top_p"},
            {"\"n\": 0", "n"},
            {"\"max_tokens\": -1", "max_tokens"},
            {"\"stop\": [\"a\", \"b\", \"c\", \"d\", \"e\"]", "stop"},
            {"\"presence_penalty\": 9", "presence_penalty"},
            {"\"logprobs\": 50", "logprobs"},
            {"\"stream\": \"yes\"", "stream"},
        };
        for (String[] c : cases) {
            String body = "{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", " + c[0] + "}";
            assertEquals(c[1], refused(post(port, "/v1/completions", body, KEY), 400).get("param").asText(), c[0]);
        }
        refused(post(port, "/v1/completions", "{\"model\": \"" + MODEL + "\"}", KEY), 400);
        refused(post(port, "/v1/chat/completions", "{\"model\": \"" + MODEL + "\", \"messages\": [{\"role\": "
                + "\"wizard\", \"content\": \"x\"}]}", KEY), 400);
        refused(post(port, "/v1/completions", "{\"model\": \"" + MODEL + "\", \"prompt\": [999999]}", KEY), 400);
    }

    @Test
    void oversizedBody_is413_unknownPath_is404() throws Exception {
        String big = "{\"model\": \"" + MODEL + "\", \"prompt\": \"" + "a".repeat(70 * 1024) + "\"}";
        refused(post(port, "/v1/completions", big, KEY), 413);
        refused(get(port, "/v1/files", KEY), 404);
        refused(post(port, "/v1/files", "{}", KEY), 404);
    }

    @Test
    void disconnectingStreamClient_freesItsKvBlocks() throws Exception {
        double cancelledBefore = metric(port, "rlx_cancelled_generations_total");
        long generatedBefore = engine.stats().generatedTokensTotal();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(10_000);
            streamRequest(s, 1900);
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            int dataLines = 0;
            for (String line; dataLines < 4 && (line = in.readLine()) != null; ) {
                if (line.startsWith("data: {")) {
                    dataLines++;
                }
            }
            assertEquals(4, dataLines, "the stream started");
            assertTrue(metric(port, "rlx_running_sequences") >= 1, "its sequence holds KV blocks");
        } // the client goes away mid-stream
        ServerFixture.awaitKvFree(port);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (metric(port, "rlx_cancelled_generations_total") == cancelledBefore && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(cancelledBefore + 1, metric(port, "rlx_cancelled_generations_total"),
                "the generation ended cancelled, not run to its end");
        long generated = engine.stats().generatedTokensTotal() - generatedBefore;
        assertTrue(generated < 1900 / 2, "it stopped soon after the client left: " + generated + " tokens of 1900");
    }

    /** A streaming completion with the repetition-free prompt "hi" that asks for {@code maxTokens}. */
    private static void streamRequest(Socket s, int maxTokens) throws Exception {
        String body = "{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", \"temperature\": 0, \"max_tokens\": "
                + maxTokens + ", \"stream\": true}";
        String req = "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
        OutputStream out = s.getOutputStream();
        out.write(req.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Test
    void fullQueue_is429WithRetryAfter_andClosingEndsInFlightStreams() throws Exception {
        try (LlmEngine small = ServerFixture.engine(gguf, 1, 1);
             RlxServer tight = RlxServer.builder(ServeOptions.defaults().withPort(0)
                     .withShutdownGrace(java.time.Duration.ofMillis(200)))
                     .generation(MODEL, small, ServerFixture.rawTemplate(gguf)).start()) {
            int p = tight.port();
            List<Socket> streams = new ArrayList<>();
            try {
                // one runs, one waits: the queue (capacity 1) is full from then on
                for (int i = 0; i < 2; i++) {
                    Socket s = new Socket();
                    s.connect(new InetSocketAddress("127.0.0.1", p), 5000);
                    s.setSoTimeout(10_000);
                    streams.add(s);
                    streamRequest(s, 1900);
                    if (i == 0) {
                        awaitRunning(p);
                    }
                }
                awaitMetric(p, "rlx_queue_length", 1);
                HttpResponse<String> r = post(p, "/v1/completions",
                        "{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", \"max_tokens\": 4}", null);
                JsonNode e = refused(r, 429);
                assertEquals("rate_limit_error", e.get("type").asText());
                assertEquals("1", r.headers().firstValue("Retry-After").orElse(""));
                // graceful shutdown: after the grace period the streams are cancelled and end; close returns
                long t0 = System.nanoTime();
                tight.close();
                assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "close did not hang");
                for (Socket s : streams) {
                    BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                            StandardCharsets.UTF_8));
                    String last = null;
                    for (String line; (line = in.readLine()) != null; ) {
                        if (line.startsWith("data: ")) {
                            last = line;
                        }
                        if ("data: [DONE]".equals(line)) {
                            break;
                        }
                    }
                    assertEquals("data: [DONE]", last, "the stream ended properly");
                }
                assertEquals(small.stats().kvBlocksTotal(), small.stats().kvBlocksFree());
            } finally {
                for (Socket s : streams) {
                    s.close();
                }
            }
        }
    }

    private static void awaitRunning(int p) throws Exception {
        awaitMetric(p, "rlx_running_sequences", 1);
    }

    private static void awaitMetric(int p, String name, double value) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (metric(p, name) != value) {
            assertTrue(System.nanoTime() < deadline, name + " never reached " + value);
            Thread.sleep(5);
        }
    }
}
