package dev.rlx.llm.tokenizer;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits text into words before byte-level BPE, by the regexes of the model family named in
 * {@code tokenizer.ggml.pre} (the ones llama.cpp's {@code llama_vocab::impl::load} assigns). Text a regex does
 * not match becomes a word of its own, as in llama.cpp's {@code unicode_regex_split}; a family with several
 * regexes applies them in turn, each splitting the words the one before made (a match never crosses a word's
 * edge, and a lookahead does not see past it).
 */
enum PreTokenizer {
    /** Llama 3 ("llama-bpe", "llama3"): digits in groups of up to three; the whole word first if it is a token. */
    LLAMA3(true, "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"
            + "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"),
    /** Qwen2: as Llama 3 but single digits. */
    QWEN2(false, "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
            + "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"),
    /** GPT-2 ("gpt2", "gpt-2", "phi-2", RoBERTa's, ...). */
    GPT2(false, Regexes.GPT2),
    /** SmolLM, StarCoder, Refact, Command-R, CodeShell, EXAONE, Minerva: every digit a word, then GPT-2's. */
    DIGITS_GPT2(false, "\\p{N}", Regexes.GPT2),
    /**
     * llama.cpp's default for a BPE vocabulary without {@code tokenizer.ggml.pre} (or "default"): runs of
     * punctuation, GPT-2's words, runs of digits, then groups of three ASCII digits.
     */
    DEFAULT(false, "[\\p{P}\\$\\+<=>\\^~\\|]+", Regexes.GPT2, "\\p{N}+", "[0-9][0-9][0-9]");

    /** Regexes several families share. */
    private static final class Regexes {
        static final String GPT2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
    }

    private final Pattern[] patterns;
    private final boolean ignoreMerges;

    PreTokenizer(boolean ignoreMerges, String... regexes) {
        // llama.cpp's \s is Unicode whitespace and \p{L}, \p{N} Unicode categories
        this.patterns = new Pattern[regexes.length];
        for (int i = 0; i < regexes.length; i++) {
            patterns[i] = Pattern.compile(regexes[i], Pattern.UNICODE_CHARACTER_CLASS);
        }
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
            case "gpt2", "gpt-2", "phi-2", "roberta-bpe", "jina-es", "jina-de", "jina-v1-en", "jina-v2-es",
                 "jina-v2-de", "gigachat", "exaone4" -> GPT2;
            case "smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b" -> DIGITS_GPT2;
            case "default", "" -> DEFAULT;
            default -> throw new TokenizerException("tokenizer.ggml.pre '" + pre + "' is not supported (llama-bpe,"
                    + " llama3, qwen2, gpt2, smollm, starcoder, refact, command-r, default, ...)");
        };
    }

    List<String> split(String text) {
        List<String> words = List.of(text);
        for (Pattern p : patterns) {
            List<String> next = new ArrayList<>();
            for (String w : words) {
                splitInto(p, w, next);
            }
            words = next;
        }
        return words;
    }

    /** The matches of {@code p} in {@code text} and the text between them, in order, appended to {@code out}. */
    private static void splitInto(Pattern p, String text, List<String> out) {
        Matcher m = p.matcher(text);
        int last = 0;
        while (m.find()) {
            if (m.start() > last) {
                out.add(text.substring(last, m.start()));
            }
            if (m.end() > m.start()) {
                out.add(m.group());
            }
            last = m.end();
        }
        if (last < text.length()) {
            out.add(text.substring(last));
        }
    }
}
