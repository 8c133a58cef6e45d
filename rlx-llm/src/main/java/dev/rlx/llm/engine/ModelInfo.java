package dev.rlx.llm.engine;

import dev.rlx.llm.tokenizer.ChatTemplate;
import java.util.Objects;
import java.util.Optional;

/**
 * What an engine serves.
 *
 * @param name the model's name (GGUF {@code general.name}, else the file name)
 * @param contextLength most tokens (prompt and output) one request may hold
 * @param vocabSize tokens in the vocabulary (length of a logits row)
 * @param chatTemplate the chat format of {@code tokenizer.chat_template}, when RLX knows it
 * @param eosToken the end-of-sequence token, or -1
 */
public record ModelInfo(String name, int contextLength, int vocabSize, Optional<ChatTemplate> chatTemplate,
                        int eosToken) {
    public ModelInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(chatTemplate, "chatTemplate");
    }
}
