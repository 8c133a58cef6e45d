package dev.rlx.serve;

import static dev.rlx.serve.ServerFixture.EMBEDDING_MODEL;
import static dev.rlx.serve.ServerFixture.KEY;
import static dev.rlx.serve.ServerFixture.MODEL;
import static dev.rlx.serve.ServerFixture.TIMEOUT;
import static dev.rlx.serve.ServerFixture.json;
import static dev.rlx.serve.ServerFixture.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.errors.UnauthorizedException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.models.Model;
import dev.rlx.llm.engine.GenerationRequest;
import dev.rlx.llm.engine.GenerationResult;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.llm.sample.SampleOpts;
import dev.rlx.llm.tokenizer.ChatTemplate;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server on a free loopback port over a synthetic ChatML model and MiniLM, driven by the official OpenAI
 * Java SDK (and raw HTTP where the SDK hides the wire): greedy answers equal {@link LlmEngine#generate}'s for
 * the same tokens, streamed equals unstreamed, seeds repeat, stop strings cut, logprobs are consistent,
 * embeddings equal {@link SentenceEmbedder}'s, and every generation leaves the KV cache free.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RlxServerTest {
    @TempDir
    static Path dir;

    private static LlmEngine engine;
    private static Session session;
    private static SentenceEmbedder served;
    private static SentenceEmbedder direct;
    private static RlxServer server;
    private static OpenAIClient client;
    private static String rawTemplate;

    @BeforeAll
    static void start() throws Exception {
        Path gguf = ServerFixture.writeModel(dir);
        engine = ServerFixture.engine(gguf, 8, 64);
        rawTemplate = ServerFixture.rawTemplate(gguf);
        session = new Session(Device.CPU);
        served = SentenceEmbedder.of(MiniLm.FP32, session);
        direct = SentenceEmbedder.of(MiniLm.FP32, session);
        server = RlxServer.builder(ServeOptions.defaults().withPort(0).withApiKey(KEY))
                .embeddings(EMBEDDING_MODEL, served).generation(MODEL, engine, rawTemplate).start();
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1").apiKey(KEY)
                .maxRetries(0).timeout(TIMEOUT).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (engine != null) {
            engine.close();
        }
        if (served != null) {
            served.close();
            direct.close();
            session.close();
        }
    }

    private static int[] chatTokens(String user) {
        String text = engine.info().chatTemplate().orElseThrow()
                .render(List.of(new ChatTemplate.Message("user", user)), true, rawTemplate);
        return engine.tokenizer().encode(text, true, true);
    }

    private static ChatCompletionCreateParams chat(String user, long maxTokens) {
        return ChatCompletionCreateParams.builder().model(MODEL).addUserMessage(user).temperature(0.0)
                .maxCompletionTokens(maxTokens).build();
    }

    @Test
    void chat_greedy_equalsTheEngineOnTheTemplatedPrompt() throws Exception {
        ChatCompletion c = client.chat().completions().create(chat("Say hello to the world.", 24));
        GenerationResult expected = engine.generate(GenerationRequest.of(chatTokens("Say hello to the world."), 24));
        assertEquals(1, c.choices().size());
        assertEquals(expected.text(), c.choices().get(0).message().content().orElse(""));
        assertEquals(expected.finish().name().toLowerCase(), c.choices().get(0).finishReason().toString());
        assertEquals(expected.completionTokens(), c.usage().orElseThrow().completionTokens());
        assertEquals(expected.promptTokens(), c.usage().orElseThrow().promptTokens());
        assertEquals(MODEL, c.model());
        ServerFixture.awaitKvFree(server.port());
        assertTrue(ServerFixture.metric(server.port(), "rlx_token_batch_sequences_count")
                >= expected.completionTokens(), "every token's batch size is observed");
        assertTrue(ServerFixture.metric(server.port(), "rlx_completion_tokens_total") >= expected.completionTokens());
    }

    @Test
    void chat_streamed_equalsUnstreamed_andEndsWithFinishReason() throws Exception {
        ChatCompletionCreateParams p = chat("Tell me a story.", 32);
        String whole = client.chat().completions().create(p).choices().get(0).message().content().orElse("");
        StringBuilder streamed = new StringBuilder();
        List<String> finishes = new ArrayList<>();
        int chunks = 0;
        try (StreamResponse<ChatCompletionChunk> s = client.chat().completions().createStreaming(p)) {
            for (ChatCompletionChunk chunk : (Iterable<ChatCompletionChunk>) s.stream()::iterator) {
                chunks++;
                for (ChatCompletionChunk.Choice ch : chunk.choices()) {
                    ch.delta().content().ifPresent(streamed::append);
                    ch.finishReason().ifPresent(f -> finishes.add(f.toString()));
                }
            }
        }
        assertEquals(whole, streamed.toString());
        assertEquals(1, finishes.size(), "one finish_reason, in the last chunk");
        assertTrue(chunks >= 2, "a role chunk and a finish chunk at least, got " + chunks);
        ServerFixture.awaitKvFree(server.port());
    }

    @Test
    void chat_streamOnTheWire_isOpenAiEventsEndingInDone() throws Exception {
        HttpResponse<String> r = post(server.port(), "/v1/chat/completions", """
                {"model": "%s", "messages": [{"role": "user", "content": "Hi"}], "temperature": 0,
                 "max_tokens": 6, "stream": true, "stream_options": {"include_usage": true}}""".formatted(MODEL), KEY);
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        // not offered for reuse: a client reusing a stream's connection for its next POST raced the server's close
        assertEquals("close", r.headers().firstValue("Connection").orElse("").toLowerCase(java.util.Locale.ROOT));
        List<String> events = new ArrayList<>();
        for (String block : r.body().split("\n\n")) {
            assertTrue(block.startsWith("data: "), block);
            events.add(block.substring(6));
        }
        assertEquals("[DONE]", events.getLast());
        JsonNode first = json(events.getFirst());
        assertEquals("chat.completion.chunk", first.get("object").asText());
        assertEquals("assistant", first.at("/choices/0/delta/role").asText());
        JsonNode usage = json(events.get(events.size() - 2)).get("usage");
        JsonNode last = json(events.get(events.size() - 3));
        assertFalse(last.at("/choices/0/finish_reason").isNull(), "the chunk before usage carries the finish");
        assertEquals(0, json(events.get(events.size() - 2)).get("choices").size());
        assertTrue(usage.get("completion_tokens").asInt() >= 1 && usage.get("completion_tokens").asInt() <= 6);
        assertEquals(chatTokens("Hi").length, usage.get("prompt_tokens").asInt());
    }

    @Test
    void completion_greedy_equalsTheEngine_andSeedsRepeat() throws Exception {
        String prompt = "The quick brown fox";
        Completion c = client.completions().create(CompletionCreateParams.builder().model(MODEL).prompt(prompt)
                .maxTokens(20L).temperature(0.0).build());
        int[] tokens = engine.tokenizer().encode(prompt, true, true);
        assertEquals(engine.generate(GenerationRequest.of(tokens, 20)).text(), c.choices().get(0).text());

        CompletionCreateParams sampled = CompletionCreateParams.builder().model(MODEL).prompt(prompt).maxTokens(20L)
                .temperature(1.0).seed(1234L).n(3L).build();
        Completion a = client.completions().create(sampled);
        Completion b = client.completions().create(sampled);
        assertEquals(3, a.choices().size());
        for (int i = 0; i < 3; i++) {
            assertEquals(a.choices().get(i).text(), b.choices().get(i).text(), "choice " + i + " repeats");
        }
        assertFalse(a.choices().get(0).text().equals(a.choices().get(1).text())
                && a.choices().get(1).text().equals(a.choices().get(2).text()), "choices use their own seeds");
        ServerFixture.awaitKvFree(server.port());
    }

    @Test
    void stopString_endsTheTextBeforeIt() throws Exception {
        String prompt = "Once upon a time";
        String free = client.completions().create(CompletionCreateParams.builder().model(MODEL).prompt(prompt)
                .maxTokens(40L).temperature(0.0).build()).choices().get(0).text();
        assertTrue(free.length() >= 8, "the model says enough to cut: '" + free + "'");
        String stop = free.substring(4, 7);
        Completion c = client.completions().create(CompletionCreateParams.builder().model(MODEL).prompt(prompt)
                .maxTokens(40L).temperature(0.0).stop(stop).build());
        assertEquals(free.substring(0, free.indexOf(stop)), c.choices().get(0).text());
        assertEquals("stop", c.choices().get(0).finishReason().toString());
    }

    @Test
    void penalties_areTheSamplersPenalties() throws Exception {
        SampleOpts penalised = SampleOpts.defaults().toBuilder().topK(0).minP(0f).topP(1f).temperature(0f)
                .frequencyPenalty(2f).presencePenalty(2f).build();
        // a prompt whose greedy continuation the penalties change (found with the engine, deterministically)
        int[] prompt = null;
        String expected = null;
        for (int k = 3; k < 200 && prompt == null; k++) {
            int[] p = {k, k + 1, k, k + 1, k, k + 1, k, k + 1};
            String withPenalties = engine.generate(GenerationRequest.of(p, 12).withSampling(penalised)).text();
            if (!withPenalties.equals(engine.generate(GenerationRequest.of(p, 12)).text())) {
                prompt = p;
                expected = withPenalties;
            }
        }
        assertTrue(prompt != null, "some prompt's greedy continuation repeats a token the penalties push down");
        JsonNode r = json(post(server.port(), "/v1/completions", """
                {"model": "%s", "prompt": %s, "temperature": 0, "max_tokens": 12, "frequency_penalty": 2,
                 "presence_penalty": 2}""".formatted(MODEL, java.util.Arrays.toString(prompt)), KEY).body());
        assertEquals(expected, r.at("/choices/0/text").asText());
    }

    @Test
    void chatLogprobs_areTheSampledTokensAndTheirAlternatives() throws Exception {
        JsonNode r = json(post(server.port(), "/v1/chat/completions", """
                {"model": "%s", "messages": [{"role": "user", "content": "Count"}], "temperature": 0,
                 "max_tokens": 8, "logprobs": true, "top_logprobs": 3}""".formatted(MODEL), KEY).body());
        JsonNode content = r.at("/choices/0/logprobs/content");
        assertEquals(r.at("/usage/completion_tokens").asInt(), content.size());
        for (JsonNode e : content) {
            double lp = e.get("logprob").asDouble();
            assertTrue(lp <= 0, "a log probability: " + lp);
            JsonNode top = e.get("top_logprobs");
            assertEquals(3, top.size());
            assertTrue(top.get(0).get("logprob").asDouble() >= top.get(1).get("logprob").asDouble());
            // greedy: the sampled token is the most likely one
            assertEquals(top.get(0).get("logprob").asDouble(), lp, 1e-6);
            assertEquals(top.get(0).get("token").asText(), e.get("token").asText());
        }
    }

    @Test
    void embeddings_equalSentenceEmbedders_alsoConcurrentAndBase64() throws Exception {
        List<String> texts = List.of("A man is eating food.", "A man is eating a piece of bread.",
                "The girl is carrying a baby.", "Short.");
        float[][] expected = direct.embed(texts);
        CreateEmbeddingResponse r = client.embeddings().create(EmbeddingCreateParams.builder().model(EMBEDDING_MODEL)
                .inputOfArrayOfStrings(texts).build());
        assertEquals(texts.size(), r.data().size());
        for (int i = 0; i < texts.size(); i++) {
            assertClose(expected[i], r.data().get(i).embedding());
        }
        // concurrent requests (one text each) join batches; each still gets its own vector
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<List<Float>>> fs = new ArrayList<>();
            for (int k = 0; k < 12; k++) {
                String t = texts.get(k % texts.size());
                fs.add(pool.submit(() -> client.embeddings().create(EmbeddingCreateParams.builder()
                        .model(EMBEDDING_MODEL).input(t).build()).data().get(0).embedding()));
            }
            for (int k = 0; k < fs.size(); k++) {
                assertClose(expected[k % texts.size()], fs.get(k).get(30, TimeUnit.SECONDS));
            }
        }
        JsonNode b64 = json(post(server.port(), "/v1/embeddings", """
                {"model": "%s", "input": "Short.", "encoding_format": "base64"}""".formatted(EMBEDDING_MODEL),
                KEY).body());
        ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(b64.at("/data/0/embedding").asText()))
                .order(ByteOrder.LITTLE_ENDIAN);
        List<Float> v = new ArrayList<>();
        while (bytes.hasRemaining()) {
            v.add(bytes.getFloat());
        }
        assertClose(expected[3], v);
        assertTrue(ServerFixture.metric(server.port(), "rlx_embedding_inputs_total") >= texts.size() + 13);
    }

    /** Padding to the batcher's shapes changes an embedding by float rounding only. */
    private static void assertClose(float[] expected, List<Float> actual) {
        assertEquals(expected.length, actual.size());
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual.get(i), 1e-5f, "dimension " + i);
        }
    }

    @Test
    void models_listBoth() {
        List<String> ids = client.models().list().data().stream().map(Model::id).toList();
        assertEquals(List.of(MODEL, EMBEDDING_MODEL), ids);
        assertEquals(MODEL, client.models().retrieve(MODEL).id());
        assertThrows(NotFoundException.class, () -> client.models().retrieve("no-such-model"));
    }

    @Test
    void sdkErrors_areTyped() {
        assertThrows(NotFoundException.class, () -> client.chat().completions().create(
                ChatCompletionCreateParams.builder().model("gpt-4").addUserMessage("x").build()));
        assertThrows(BadRequestException.class, () -> client.completions().create(CompletionCreateParams.builder()
                .model(MODEL).prompt("x").temperature(7.0).build()));
        OpenAIClient wrong = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1")
                .apiKey("wrong").maxRetries(0).timeout(TIMEOUT).build();
        try {
            UnauthorizedException e = assertThrows(UnauthorizedException.class,
                    () -> wrong.chat().completions().create(chat("x", 2)));
            assertEquals(401, e.statusCode());
        } finally {
            wrong.close();
        }
    }
}
