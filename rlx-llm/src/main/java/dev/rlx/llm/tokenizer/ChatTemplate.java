package dev.rlx.llm.tokenizer;

import java.util.List;

/**
 * The chat formats RLX renders itself, recognised from {@code tokenizer.chat_template} by the markers llama.cpp's
 * {@code llm_chat_detect_template} looks for (the Jinja text is not executed). Rendered text is meant to be
 * encoded with special tokens parsed; BOS comes from the tokenizer, not from the template.
 */
public enum ChatTemplate {
    /** {@code <|im_start|>role\ncontent<|im_end|>\n} (Qwen2 and many others). */
    CHATML,
    /** {@code <|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>}. */
    LLAMA3,
    /** {@code [INST] <<SYS>>\nsys\n<</SYS>>\n\nuser [/INST] assistant</s>}. */
    LLAMA2;

    /** One chat turn. */
    public record Message(String role, String content) {}

    /** The format {@code template} is written for, or null when it is none of these. */
    public static ChatTemplate detect(String template) {
        if (template == null) {
            return null;
        }
        if (template.contains("<|im_start|>")) {
            return CHATML;
        }
        if (template.contains("<|start_header_id|>") && template.contains("<|end_header_id|>")) {
            return LLAMA3;
        }
        if (template.contains("[INST]")) {
            return LLAMA2;
        }
        return null;
    }

    /**
     * Renders {@code messages}; with {@code addAssistant} the text ends where the assistant's reply begins. For
     * LLAMA2, {@code template} decides (as in llama.cpp) whether system messages get {@code <<SYS>>}, whether
     * later turns start with {@code <s>} and whether content is stripped.
     */
    public String render(List<Message> messages, boolean addAssistant, String template) {
        StringBuilder sb = new StringBuilder();
        switch (this) {
            case CHATML -> {
                for (Message m : messages) {
                    sb.append("<|im_start|>").append(m.role()).append('\n').append(m.content()).append("<|im_end|>\n");
                }
                if (addAssistant) {
                    sb.append("<|im_start|>assistant\n");
                }
            }
            case LLAMA3 -> {
                for (Message m : messages) {
                    sb.append("<|start_header_id|>").append(m.role()).append("<|end_header_id|>\n\n")
                            .append(m.content().strip()).append("<|eot_id|>");
                }
                if (addAssistant) {
                    sb.append("<|start_header_id|>assistant<|end_header_id|>\n\n");
                }
            }
            case LLAMA2 -> {
                String t = template == null ? "" : template;
                boolean sys = t.contains("<<SYS>>");
                boolean bosInside = t.contains("bos_token + '[INST]");
                boolean strip = t.contains("content.strip()");
                boolean inTurn = true;
                sb.append("[INST] ");
                for (Message m : messages) {
                    String c = strip ? m.content().strip() : m.content();
                    if (!inTurn) {
                        inTurn = true;
                        sb.append(bosInside ? "<s>[INST] " : "[INST] ");
                    }
                    switch (m.role()) {
                        case "system" -> sb.append(sys ? "<<SYS>>\n" + c + "\n<</SYS>>\n\n" : c + "\n");
                        case "user" -> sb.append(c).append(" [/INST]");
                        default -> {
                            sb.append(c).append("</s>");
                            inTurn = false;
                        }
                    }
                }
            }
        }
        return sb.toString();
    }
}
