package dev.rlx.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rlx.llm.engine.EngineException;
import dev.rlx.llm.engine.EngineStats;
import dev.rlx.llm.engine.FinishReason;
import dev.rlx.llm.engine.Generation;
import dev.rlx.llm.engine.GenerationRequest;
import dev.rlx.llm.engine.GenerationResult;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.llm.engine.TokenEvent;
import dev.rlx.llm.engine.TopLogprob;
import dev.rlx.llm.tokenizer.Tokenizer;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * {@code POST /v1/completions} and {@code /v1/chat/completions} over an {@link LlmEngine}. Each choice is one
 * engine request; the engine's step loop batches them with every other running sequence (continuous batching
 * is the engine's, not the server's). Each choice is read on its own virtual thread as its tokens come;
 * streamed answers go out as OpenAI chunks, and a client that goes away has its generations cancelled at once,
 * which frees their sequences and KV blocks at the engine's next step.
 */
final class CompletionsEndpoint {
    private final String modelId;
    private final LlmEngine engine;
    private final Tokenizer tokenizer;
    private final String rawTemplate;
    private final ServerMetrics metrics;
    private final Set<Generation> live = ConcurrentHashMap.newKeySet();
    private final AtomicLong nextId = new AtomicLong(1);
    private final String idPrefix = Long.toHexString(System.currentTimeMillis());

    CompletionsEndpoint(String modelId, LlmEngine engine, String rawTemplate, ServerMetrics metrics) {
        this.modelId = modelId;
        this.engine = engine;
        this.tokenizer = engine.tokenizer();
        this.rawTemplate = rawTemplate;
        this.metrics = metrics;
        gauge("rlx_queue_length", "Requests waiting for the engine (queued or preempted).", EngineStats::waiting);
        gauge("rlx_running_sequences", "Sequences holding KV blocks.", EngineStats::running);
        gauge("rlx_kv_blocks_total", "Blocks in the KV cache.", EngineStats::kvBlocksTotal);
        gauge("rlx_kv_blocks_free", "KV cache blocks free.", EngineStats::kvBlocksFree);
        gauge("rlx_kv_blocks_used", "KV cache blocks in use.", s -> s.kvBlocksTotal() - s.kvBlocksFree());
        gauge("rlx_batch_sequences", "Sequences in the engine's last step.", EngineStats::lastBatchSequences);
        gauge("rlx_batch_tokens", "Tokens in the engine's last step.", EngineStats::lastBatchTokens);
        gauge("rlx_engine_steps", "Model steps run so far (generated tokens / steps = mean decode batch).",
                EngineStats::steps);
        gauge("rlx_engine_generated_tokens", "Tokens the engine generated so far.",
                EngineStats::generatedTokensTotal);
    }

    private void gauge(String name, String help, ToDoubleFunction<EngineStats> f) {
        metrics.gauge(name, help, () -> f.applyAsDouble(engine.stats()));
    }

    String modelId() {
        return modelId;
    }

    /** Answers one request, as server-sent events when it asks so; refusals before any byte is sent throw. */
    void complete(ObjectNode body, ServerResponse res, boolean chat) throws InterruptedException {
        long arrival = System.nanoTime();
        String model = new Fields(body).requiredString("model");
        if (!model.equals(modelId)) {
            throw ApiError.notFound("the model '" + model + "' does not exist; this server generates with '"
                    + modelId + "'", "model", "model_not_found");
        }
        CompletionParams p = CompletionParams.parse(body, chat, tokenizer, engine.info().chatTemplate(),
                rawTemplate);
        List<Generation> gens = submit(p, chat);
        metrics.add("rlx_prompt_tokens_total", p.promptTokens());
        Answer answer = new Answer(chat, p, (chat ? "chatcmpl-" : "cmpl-") + idPrefix + "-" + nextId.getAndIncrement(),
                System.currentTimeMillis() / 1000);
        EventStream events = p.stream() ? new EventStream(res) : null;
        Choice[] choices = new Choice[gens.size()];
        try {
            List<Thread> readers = new ArrayList<>(gens.size());
            for (int i = 0; i < choices.length; i++) {
                choices[i] = new Choice(i, gens.get(i), arrival);
                Choice c = choices[i];
                readers.add(Thread.ofVirtual().name("rlx-serve-choice").start(() -> read(c, answer, events)));
            }
            for (Thread t : readers) {
                t.join();
            }
        } finally {
            for (Generation g : gens) {
                g.cancel(); // a no-op once finished; frees the sequence when this thread was interrupted
                live.remove(g);
            }
        }
        long completionTokens = 0;
        for (Choice c : choices) {
            completionTokens += c.result == null ? 0 : c.result.completionTokens();
            if (c.result != null && c.result.finish() == FinishReason.CANCELLED) {
                metrics.add("rlx_cancelled_generations_total", 1);
            }
        }
        metrics.add("rlx_completion_tokens_total", completionTokens);
        if (events != null) {
            finishStream(events, answer, choices, completionTokens);
        } else {
            for (Choice c : choices) {
                if (c.result == null || c.result.finish() == FinishReason.ERROR) {
                    throw ApiError.internal("the model failed while generating choice " + c.index);
                }
            }
            RlxServer.json(res, 200, answer.full(choices, completionTokens));
        }
    }

    private void finishStream(EventStream events, Answer answer, Choice[] choices, long completionTokens) {
        if (events.clientGone()) {
            return;
        }
        try {
            for (Choice c : choices) {
                if (c.result == null || c.result.finish() == FinishReason.ERROR) {
                    events.send(Json.error(ApiError.internal("the model failed while generating choice "
                            + c.index)));
                }
            }
            if (answer.params.includeUsage()) {
                events.send(answer.usageChunk(completionTokens));
            }
            events.done();
            events.close();
        } catch (EventStream.ClientGone e) {
            // nothing more can reach the client; its generations are over already
        }
    }

    /** Submits one request per choice; a refusal cancels those already queued. */
    private List<Generation> submit(CompletionParams p, boolean chat) {
        List<Generation> gens = new ArrayList<>(p.requests().size());
        try {
            for (GenerationRequest r : p.requests()) {
                Generation g = engine.submit(r);
                gens.add(g);
                live.add(g);
            }
            return gens;
        } catch (EngineException e) {
            for (Generation g : gens) {
                g.cancel();
                live.remove(g);
            }
            throw switch (e.reason()) {
                case QUEUE_FULL -> ApiError.overloaded("the server is at capacity ("
                        + engine.options().queueCapacity() + " requests waiting); retry shortly", 1);
                case CONTEXT_EXCEEDED -> ApiError.invalid("this model's maximum context length is "
                        + engine.info().contextLength() + " tokens; the request has " + p.promptTokens()
                        + " prompt tokens and asks for up to " + maxTokensOf(p) + " more (" + e.getMessage() + ")",
                        chat ? "messages" : "prompt", "context_length_exceeded");
                case INVALID_REQUEST -> ApiError.invalid(e.getMessage(), null);
                case CLOSED -> ApiError.unavailable("the engine is closed");
                case MODEL_ERROR -> ApiError.internal(e.getMessage());
            };
        }
    }

    private static String maxTokensOf(CompletionParams p) {
        int m = p.requests().getFirst().maxTokens();
        return m == 0 ? "the rest of the context" : Integer.toString(m);
    }

    /** Reads one choice's events to its end, streaming each as a chunk when the answer is streamed. */
    private void read(Choice c, Answer answer, EventStream events) {
        try {
            if (events != null) {
                events.send(answer.firstChunk(c.index));
            }
            for (TokenEvent e; (e = c.generation.next()) != null; ) {
                long now = System.nanoTime();
                if (c.lastNanos == 0) {
                    metrics.timeToFirstToken.observe((now - c.arrivalNanos) / 1e9);
                } else {
                    metrics.interTokenLatency.observe((now - c.lastNanos) / 1e9);
                }
                c.lastNanos = now;
                metrics.decodeBatch.observe(engine.stats().lastBatchSequences());
                if (events != null) {
                    if (!e.text().isEmpty() || answer.params.logprobs()) {
                        events.send(answer.tokenChunk(c, e));
                    }
                    c.offset += e.text().length();
                } else {
                    c.add(e);
                }
            }
            c.result = c.generation.await();
            if (events != null && c.result.finish() != FinishReason.ERROR) {
                events.send(answer.finishChunk(c.index, c.result.finish()));
            }
        } catch (EventStream.ClientGone e) {
            c.generation.cancel(); // frees its KV blocks at the next step, not at the end
            try {
                c.result = c.generation.await();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        } catch (InterruptedException e) {
            c.generation.cancel();
            Thread.currentThread().interrupt();
        }
    }

    /** Cancels every generation still running (graceful shutdown, after the grace period). */
    void cancelAll() {
        for (Generation g : live) {
            g.cancel();
        }
    }

    /** One choice: its generation and, unstreamed, what it gathered. */
    private static final class Choice {
        final int index;
        final Generation generation;
        final long arrivalNanos;
        final StringBuilder text = new StringBuilder();
        final List<TokenEvent> events = new ArrayList<>();
        long lastNanos;
        int offset; // characters released so far (completions' text_offset)
        volatile GenerationResult result;

        Choice(int index, Generation generation, long arrivalNanos) {
            this.index = index;
            this.generation = generation;
            this.arrivalNanos = arrivalNanos;
        }

        void add(TokenEvent e) {
            text.append(e.text());
            events.add(e);
        }
    }

    /** The OpenAI objects of one answer: chunks of a stream, or the whole completion. */
    private final class Answer {
        final boolean chat;
        final CompletionParams params;
        final String id;
        final long created;

        Answer(boolean chat, CompletionParams params, String id, long created) {
            this.chat = chat;
            this.params = params;
            this.id = id;
            this.created = created;
        }

        private ObjectNode envelope(String object) {
            ObjectNode o = Json.object();
            o.put("id", id);
            o.put("object", object);
            o.put("created", created);
            o.put("model", modelId);
            return o;
        }

        private ObjectNode chunk(int index) {
            ObjectNode o = envelope(chat ? "chat.completion.chunk" : "text_completion");
            ObjectNode choice = o.putArray("choices").addObject();
            choice.put("index", index);
            if (chat) {
                choice.putObject("delta");
            } else {
                choice.put("text", "");
            }
            choice.putNull("logprobs");
            choice.putNull("finish_reason");
            return o;
        }

        private ObjectNode choiceOf(ObjectNode chunk) {
            return (ObjectNode) chunk.get("choices").get(0);
        }

        /** Chat streams open each choice with the assistant role. */
        ObjectNode firstChunk(int index) {
            ObjectNode o = chunk(index);
            if (chat) {
                ObjectNode delta = (ObjectNode) choiceOf(o).get("delta");
                delta.put("role", "assistant");
                delta.put("content", "");
            }
            return o;
        }

        ObjectNode tokenChunk(Choice c, TokenEvent e) {
            ObjectNode o = chunk(c.index);
            ObjectNode choice = choiceOf(o);
            if (chat) {
                ((ObjectNode) choice.get("delta")).put("content", e.text());
            } else {
                choice.put("text", e.text());
            }
            if (params.logprobs()) {
                if (chat) {
                    ObjectNode lp = choice.putObject("logprobs");
                    lp.putArray("content").add(chatLogprob(e));
                    lp.putNull("refusal");
                } else {
                    choice.set("logprobs", completionLogprobs(List.of(e), c.offset));
                }
            }
            return o;
        }

        ObjectNode finishChunk(int index, FinishReason finish) {
            ObjectNode o = chunk(index);
            choiceOf(o).put("finish_reason", finishReason(finish));
            return o;
        }

        ObjectNode usageChunk(long completionTokens) {
            ObjectNode o = envelope(chat ? "chat.completion.chunk" : "text_completion");
            o.putArray("choices");
            o.set("usage", usage(completionTokens));
            return o;
        }

        ObjectNode full(Choice[] choices, long completionTokens) {
            ObjectNode o = envelope(chat ? "chat.completion" : "text_completion");
            ArrayNode cs = o.putArray("choices");
            for (Choice c : choices) {
                ObjectNode choice = cs.addObject();
                choice.put("index", c.index);
                if (chat) {
                    ObjectNode m = choice.putObject("message");
                    m.put("role", "assistant");
                    m.put("content", c.text.toString());
                    m.putNull("refusal");
                } else {
                    choice.put("text", c.text.toString());
                }
                if (!params.logprobs()) {
                    choice.putNull("logprobs");
                } else if (chat) {
                    ObjectNode lp = choice.putObject("logprobs");
                    ArrayNode content = lp.putArray("content");
                    for (TokenEvent e : c.events) {
                        content.add(chatLogprob(e));
                    }
                    lp.putNull("refusal");
                } else {
                    choice.set("logprobs", completionLogprobs(c.events, 0));
                }
                choice.put("finish_reason", finishReason(c.result.finish()));
            }
            o.set("usage", usage(completionTokens));
            return o;
        }

        private ObjectNode usage(long completionTokens) {
            ObjectNode u = Json.object();
            u.put("prompt_tokens", params.promptTokens());
            u.put("completion_tokens", completionTokens);
            u.put("total_tokens", params.promptTokens() + completionTokens);
            return u;
        }

        /** Chat's {@code {token, logprob, bytes, top_logprobs: [...]}}. */
        private ObjectNode chatLogprob(TokenEvent e) {
            ObjectNode entry = tokenEntry(e.token(), e.logprob());
            ArrayNode top = entry.putArray("top_logprobs");
            for (TopLogprob t : e.top()) {
                top.add(tokenEntry(t.token(), t.logprob()));
            }
            return entry;
        }

        private ObjectNode tokenEntry(int token, float logprob) {
            byte[] bytes = piece(token);
            ObjectNode o = Json.object();
            o.put("token", new String(bytes, StandardCharsets.UTF_8));
            o.put("logprob", logprob);
            ArrayNode b = o.putArray("bytes");
            for (byte x : bytes) {
                b.add(x & 0xFF);
            }
            return o;
        }

        /** Completions' {@code {tokens, token_logprobs, top_logprobs, text_offset}}. */
        private ObjectNode completionLogprobs(List<TokenEvent> events, int offset) {
            ObjectNode o = Json.object();
            ArrayNode tokens = o.putArray("tokens");
            ArrayNode lps = o.putArray("token_logprobs");
            ArrayNode tops = o.putArray("top_logprobs");
            ArrayNode offsets = o.putArray("text_offset");
            int at = offset;
            for (TokenEvent e : events) {
                tokens.add(new String(piece(e.token()), StandardCharsets.UTF_8));
                lps.add(e.logprob());
                ObjectNode top = tops.addObject();
                for (TopLogprob t : e.top()) {
                    top.put(new String(piece(t.token()), StandardCharsets.UTF_8), t.logprob());
                }
                offsets.add(at);
                at += e.text().length();
            }
            return o;
        }

        private byte[] piece(int token) {
            return token < tokenizer.vocabulary().size() ? tokenizer.piece(token, false) : new byte[0];
        }
    }

    private static String finishReason(FinishReason f) {
        return f.name().toLowerCase(Locale.ROOT); // stop, length, cancelled (client gone or shutdown), error
    }
}
