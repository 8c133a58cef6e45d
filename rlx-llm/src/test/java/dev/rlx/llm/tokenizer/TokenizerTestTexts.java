package dev.rlx.llm.tokenizer;

import java.util.List;

/** The multilingual text set both tokenizer kinds are checked on, here and against llama.cpp. */
public final class TokenizerTestTexts {
    private TokenizerTestTexts() {}

    /** ASCII, accents, Cyrillic, Greek, CJK, emoji (with ZWJ), code, whitespace runs, CRLF, special markers. */
    public static final List<String> ALL = List.of(
            "Hello world",
            "The quick brown fox jumps over the lazy dog.",
            "Café naïve résumé — déjà vu, Ærøskøbing",
            "Привет, мир! Γειά σου κόσμε.",
            "你好，世界。日本語のテキスト、한국어",
            "Emoji 🙂🚀 and a family 👩‍👩‍👧 and 👩‍💻",
            "def f(x):\n    return x ** 2  # square\n",
            "for (int i = 0; i < n; i++) { s += a[i]; }",
            "   leading, trailing   ",
            "tabs\tand\t\tnewlines\n\n\nand\r\nCRLF",
            "numbers 1234567890 3.14159 1e-9",
            "It's they're we've I'm you'll he'd IT'S",
            " ",
            "\n",
            "x",
            "<|im_start|>user\nhi<|im_end|> <|eot_id|><s>");
}
