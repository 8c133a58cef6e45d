package dev.rlx.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rlx.llm.engine.GenerationRequest;
import dev.rlx.llm.sample.SampleOpts;
import dev.rlx.llm.sample.Samplers;
import dev.rlx.llm.tokenizer.ChatTemplate;
import dev.rlx.llm.tokenizer.Tokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A {@code /v1/completions} or {@code /v1/chat/completions} body turned into engine requests, every field checked
 * (a 400 naming it otherwise). OpenAI's defaults, not llama.cpp's: temperature 1, top_p 1, no top-k or min-p;
 * {@code max_tokens} 16 for completions and "what the context leaves" for chat. Choice {@code i} of {@code n} is
 * sampled with seed {@code seed + i}, so the choices differ and the same request gives the same choices.
 *
 * @param requests one engine request per choice
 * @param stream answer as server-sent events
 * @param includeUsage {@code stream_options.include_usage}: a last chunk with the token counts
 * @param logprobs report the sampled token's logprob
 * @param topLogprobs alternatives reported per token
 */
record CompletionParams(List<GenerationRequest> requests, boolean stream, boolean includeUsage, boolean logprobs,
                        int topLogprobs) {
    /** OpenAI's limits. */
    static final int MAX_N = 16;
    static final int MAX_STOP = 4;
    static final int MAX_TOP_LOGPROBS = 20;
    /** Completions' default {@code max_tokens}, as OpenAI's. */
    static final int COMPLETIONS_DEFAULT_MAX_TOKENS = 16;

    int promptTokens() {
        return requests.getFirst().prompt().length;
    }

    /**
     * Parses {@code body}; {@code template} and {@code rawTemplate} render chat messages (empty: the model has no
     * chat template RLX knows, and chat requests are refused).
     */
    static CompletionParams parse(ObjectNode body, boolean chat, Tokenizer tokenizer,
                                  Optional<ChatTemplate> template, String rawTemplate) {
        Fields f = new Fields(body);
        int[] prompt = chat ? chatPrompt(f, tokenizer, template, rawTemplate) : textPrompt(f, tokenizer);
        boolean stream = f.bool("stream", false);
        boolean includeUsage = false;
        if (f.has("stream_options")) {
            JsonNode so = f.node("stream_options");
            if (!so.isObject()) {
                throw ApiError.invalid("'stream_options' must be an object", "stream_options");
            }
            includeUsage = new Fields((ObjectNode) so).bool("include_usage", false);
        }
        int n = f.integer("n", 1, 1, MAX_N);
        if (f.bool("echo", false)) {
            throw ApiError.invalid("'echo' is not supported by this server", "echo");
        }
        if (f.has("best_of") && f.integer("best_of", 1, 1, MAX_N) != n) {
            throw ApiError.invalid("'best_of' other than 'n' is not supported by this server", "best_of");
        }
        int maxTokens;
        if (chat) {
            int legacy = f.integer("max_tokens", 0, 1, Integer.MAX_VALUE);
            maxTokens = f.integer("max_completion_tokens", legacy, 1, Integer.MAX_VALUE);
        } else {
            maxTokens = f.integer("max_tokens", COMPLETIONS_DEFAULT_MAX_TOKENS, 1, Integer.MAX_VALUE);
        }
        boolean logprobs;
        int top;
        if (chat) {
            logprobs = f.bool("logprobs", false);
            top = f.integer("top_logprobs", 0, 0, MAX_TOP_LOGPROBS);
            if (top > 0 && !logprobs) {
                throw ApiError.invalid("'top_logprobs' needs 'logprobs': true", "top_logprobs");
            }
        } else {
            // completions: logprobs is the count of alternatives (0 = the sampled token's only)
            logprobs = f.has("logprobs");
            top = f.integer("logprobs", 0, 0, MAX_TOP_LOGPROBS);
        }
        List<String> stop = f.strings("stop", MAX_STOP);
        float temperature = f.number("temperature", 1f, 0f, 2f);
        float topP = f.number("top_p", 1f, 0f, 1f);
        if (topP <= 0f) {
            throw ApiError.invalid("'top_p' must be in (0, 1] but is 0", "top_p");
        }
        float presence = f.number("presence_penalty", 0f, -2f, 2f);
        float frequency = f.number("frequency_penalty", 0f, -2f, 2f);
        long seed = f.has("seed") ? Math.floorMod(f.longInteger("seed", 0), Samplers.RANDOM_SEED) : -1;
        SampleOpts base = SampleOpts.defaults().toBuilder().topK(0).minP(0f).topP(topP).temperature(temperature)
                .presencePenalty(presence).frequencyPenalty(frequency).build();
        List<GenerationRequest> requests = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long s = seed < 0 ? Samplers.RANDOM_SEED : Math.floorMod(seed + i, Samplers.RANDOM_SEED);
            requests.add(new GenerationRequest(prompt, base.toBuilder().seed(s).build(), maxTokens, stop, Set.of(),
                    top));
        }
        return new CompletionParams(requests, stream, includeUsage, logprobs, top);
    }

    /** {@code prompt}: a string, one string in an array, or an array of token ids. */
    private static int[] textPrompt(Fields f, Tokenizer tokenizer) {
        JsonNode p = f.node("prompt");
        if (p == null) {
            throw ApiError.invalid("you must provide 'prompt'", "prompt");
        }
        if (p.isArray() && p.size() == 1 && p.get(0).isTextual()) {
            p = p.get(0);
        }
        if (p.isTextual()) {
            if (p.textValue().isEmpty()) {
                throw ApiError.invalid("'prompt' is empty", "prompt");
            }
            return tokenizer.encode(p.textValue(), true, true);
        }
        if (p.isArray() && !p.isEmpty() && p.get(0).isIntegralNumber()) {
            int vocab = tokenizer.vocabulary().size();
            int[] ids = new int[p.size()];
            for (int i = 0; i < ids.length; i++) {
                JsonNode t = p.get(i);
                if (!t.isIntegralNumber() || !t.canConvertToInt() || t.intValue() < 0 || t.intValue() >= vocab) {
                    throw ApiError.invalid("'prompt[" + i + "]' must be a token id in [0, " + vocab + ") but is " + t,
                            "prompt");
                }
                ids[i] = t.intValue();
            }
            return ids;
        }
        throw ApiError.invalid("'prompt' must be a string, an array of one string or an array of token ids;"
                + " this server takes one prompt per request", "prompt");
    }

    /** {@code messages} rendered with the model's chat template, ending where the assistant's turn begins. */
    private static int[] chatPrompt(Fields f, Tokenizer tokenizer, Optional<ChatTemplate> template,
                                    String rawTemplate) {
        JsonNode ms = f.node("messages");
        if (ms == null) {
            throw ApiError.invalid("you must provide 'messages'", "messages");
        }
        if (!ms.isArray() || ms.isEmpty()) {
            throw ApiError.invalid("'messages' must be a non-empty array", "messages");
        }
        if (template.isEmpty()) {
            throw ApiError.invalid("this model has no chat template RLX knows (ChatML, Llama 2, Llama 3);"
                    + " use /v1/completions", "messages");
        }
        List<ChatTemplate.Message> messages = new ArrayList<>(ms.size());
        for (int i = 0; i < ms.size(); i++) {
            JsonNode m = ms.get(i);
            String at = "messages[" + i + "]";
            if (!m.isObject()) {
                throw ApiError.invalid("'" + at + "' must be an object", "messages");
            }
            JsonNode role = m.get("role");
            if (role == null || !role.isTextual()) {
                throw ApiError.invalid("'" + at + ".role' must be a string", "messages");
            }
            String r = switch (role.textValue()) {
                case "system", "developer" -> "system";
                case "user" -> "user";
                case "assistant" -> "assistant";
                default -> throw ApiError.invalid("'" + at + ".role' must be system, developer, user or assistant"
                        + " but is '" + role.textValue() + "'", "messages");
            };
            messages.add(new ChatTemplate.Message(r, content(m.get("content"), at)));
        }
        return tokenizer.encode(template.get().render(messages, true, rawTemplate), true, true);
    }

    /** A message's {@code content}: a string, or text parts ({@code {"type": "text", "text": ...}}) joined. */
    private static String content(JsonNode c, String at) {
        if (c == null || c.isNull()) {
            return "";
        }
        if (c.isTextual()) {
            return c.textValue();
        }
        if (c.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : c) {
                JsonNode type = part.get("type");
                JsonNode text = part.get("text");
                if (type == null || !"text".equals(type.asText()) || text == null || !text.isTextual()) {
                    throw ApiError.invalid("'" + at + ".content' parts must be {\"type\": \"text\", \"text\": ...};"
                            + " this server takes text only", "messages");
                }
                sb.append(text.textValue());
            }
            return sb.toString();
        }
        throw ApiError.invalid("'" + at + ".content' must be a string or an array of text parts", "messages");
    }
}
