package dev.rlx.llm.tokenizer;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits text into words before byte-level BPE, by the regex of the model family named in
 * {@code tokenizer.ggml.pre} (the ones llama.cpp's {@code llama_vocab::impl::load} assigns). Text the regex does
 * not match becomes a word of its own, as in llama.cpp's {@code unicode_regex_split}.
 */
enum PreTokenizer {
    /** Llama 3 ("llama-bpe", "llama3"): digits in groups of up to three; the whole word first if it is a token. */
    LLAMA3("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"
            + "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", true),
    /** Qwen2: as Llama 3 but single digits. */
    QWEN2("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
            + "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", false),
    /** GPT-2 ("gpt2"). */
    GPT2("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", false);

    private final Pattern pattern;
    private final boolean ignoreMerges;

    PreTokenizer(String regex, boolean ignoreMerges) {
        // llama.cpp's \s is Unicode whitespace and \p{L}, \p{N} Unicode categories
        this.pattern = Pattern.compile(regex, Pattern.UNICODE_CHARACTER_CLASS);
        this.ignoreMerges = ignoreMerges;
    }

    /** Whether a word that is a token as a whole is emitted without merging (llama.cpp's ignore_merges). */
    boolean ignoreMerges() {
        return ignoreMerges;
    }

    static PreTokenizer of(String pre) {
        return switch (pre) {
            case "llama3", "llama-v3", "llama-bpe", "falcon3" -> LLAMA3;
            case "qwen2", "deepseek-r1-qwen" -> QWEN2;
            case "gpt2", "gpt-2" -> GPT2;
            default -> throw new TokenizerException("tokenizer.ggml.pre '" + pre + "' is not supported (llama-bpe,"
                    + " llama3, qwen2, gpt2)");
        };
    }

    List<String> split(String text) {
        List<String> words = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        int last = 0;
        while (m.find()) {
            if (m.start() > last) {
                words.add(text.substring(last, m.start()));
            }
            if (m.end() > m.start()) {
                words.add(m.group());
            }
            last = m.end();
        }
        if (last < text.length()) {
            words.add(text.substring(last));
        }
        return words;
    }
}
