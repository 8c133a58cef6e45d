package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code rlx serve} on a synthetic model and MiniLM: greedy completions equal {@code rlx generate}'s text, embeddings
 * answer, the key is required; option errors.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeCommandTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private static HttpResponse<String> post(int port, String path, String body, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(TIMEOUT)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()) {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void greedyCompletionEqualsRlxGenerate(@TempDir Path dir) throws Exception {
        Path m = dir.resolve("tiny.gguf");
        assertEquals(0, Cli.rlx("gguf", "synth", m.toString(), "--type", "f32").exit());
        Cli generated = Cli.rlx("generate", m.toString(), "Hello world", "--max-tokens", "12", "--temp", "0",
                "--threads", "1", "--kv", "f32");
        assertEquals(0, generated.exit(), generated.err());

        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("--model", m.toString(), "--port", "0", "--threads", "1", "--kv", "f32",
                "--max-sequences", "2", "--api-key", "k", "--embedding-model", "minilm");
        try (ServeCommand.Running running = serve.start()) {
            int port = running.port();
            HttpResponse<String> r = post(port, "/v1/completions", """
                    {"model": "tiny", "prompt": "Hello world", "max_tokens": 12, "temperature": 0}""", "k");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode body = new ObjectMapper().readTree(r.body());
            assertEquals(generated.out(), body.at("/choices/0/text").asText() + System.lineSeparator());
            // the tiny model has no chat template: chat is refused as bad input, and the key is required
            assertEquals(400, post(port, "/v1/chat/completions", """
                    {"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}""", "k").statusCode());
            assertEquals(401, post(port, "/v1/completions", "{}", null).statusCode());
            HttpResponse<String> e = post(port, "/v1/embeddings", """
                    {"model": "all-minilm-l6-v2", "input": "A cat sits."}""", "k");
            assertEquals(200, e.statusCode(), e.body());
            assertEquals(384, new ObjectMapper().readTree(e.body()).at("/data/0/embedding").size());
        }
    }

    @Test
    void badOptionsAreUsageErrors(@TempDir Path dir) {
        Cli nothing = Cli.rlx("serve", "--port", "0");
        assertEquals(2, nothing.exit());
        assertTrue(nothing.err().contains("--model, --embedding-model"), nothing.err());
        Cli kv = Cli.rlx("serve", "--model", dir.resolve("m.gguf").toString(), "--kv", "q2", "--port", "0");
        assertEquals(2, kv.exit());
        assertTrue(kv.err().contains("--kv must be"), kv.err());
        Cli missing = Cli.rlx("serve", "--model", dir.resolve("none.gguf").toString(), "--port", "0");
        assertEquals(1, missing.exit());
        assertTrue(missing.err().contains("no such file"), missing.err());
    }
}
