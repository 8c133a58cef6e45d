package dev.rlx.llm.tokenizer;

import dev.rlx.llm.gguf.GgufArray;
import dev.rlx.llm.gguf.GgufValueType;
import dev.rlx.llm.gguf.GgufWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Generates tokenizer metadata for synthetic models and tests (no trained vocabulary can be downloaded here):
 * a SentencePiece-style vocabulary of byte tokens, the characters of a corpus and its frequent substrings, or a
 * byte-level BPE vocabulary with merges learnt from the corpus. Deterministic: the same corpus and size give the
 * same tokens.
 */
public final class SyntheticVocab {
    private SyntheticVocab() {}

    /** A corpus of mixed scripts, code and whitespace to learn from when the caller has none. */
    public static final String DEFAULT_CORPUS = """
            The quick brown fox jumps over the lazy dog. It's 2026 and we're testing 12345 tokens!
            Café, naïve, résumé, Ærøskøbing — déjà vu. Привет, мир! Γειά σου κόσμε. 你好，世界。日本語のテキスト。
            def main(args):\n    for i in range(10):\n        print(f"{i}: {args[i]}")  # comment
            public static void main(String[] args) { System.out.println("hello\\tworld"); }
            Emoji: 🙂🚀 👩‍💻 — tabs\tand   spaces    and\r\nnewlines\n\n\nend.
            """;

    /** SentencePiece (tokenizer.ggml.model = llama) with about {@code size} tokens; 0/1/2 are unk/BOS/EOS. */
    public static void writeSpm(GgufWriter w, String corpus, int size) {
        List<String> tokens = new ArrayList<>(List.of("<unk>", "<s>", "</s>"));
        List<Float> scores = new ArrayList<>(List.of(0f, 0f, 0f));
        List<Integer> types = new ArrayList<>(List.of(2, 3, 3));
        for (int b = 0; b < 256; b++) {
            tokens.add(String.format("<0x%02X>", b));
            scores.add(0f);
            types.add(6);
        }
        String text = (" " + corpus).replace(" ", SpmTokenizer.SPACE);
        Map<String, Integer> counts = new HashMap<>();
        int[] cps = text.codePoints().toArray();
        for (int i = 0; i < cps.length; i++) {
            StringBuilder s = new StringBuilder();
            for (int l = 1; l <= 6 && i + l <= cps.length; l++) {
                s.appendCodePoint(cps[i + l - 1]);
                counts.merge(s.toString(), 1, Integer::sum);
            }
        }
        // single characters first (so pieces can be built), then substrings by frequency x length
        TreeMap<String, Integer> chars = new TreeMap<>();
        List<Map.Entry<String, Integer>> pieces = new ArrayList<>();
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            int cpCount = e.getKey().codePointCount(0, e.getKey().length());
            if (cpCount == 1) {
                // leave out some CJK and every emoji, so byte fallback is exercised
                int cp = e.getKey().codePointAt(0);
                if (cp < 0x1F000 && cp != '界' && cp != '語') {
                    chars.put(e.getKey(), e.getValue());
                }
            } else if (e.getValue() >= 2 && !e.getKey().contains("\n")) {
                pieces.add(e);
            }
        }
        for (String c : chars.keySet()) {
            tokens.add(c);
            scores.add(-1000f - tokens.size());
            types.add(1);
        }
        pieces.sort((a, b) -> {
            int sa = a.getValue() * a.getKey().length();
            int sb = b.getValue() * b.getKey().length();
            return sa != sb ? sb - sa : a.getKey().compareTo(b.getKey());
        });
        for (int i = 0; i < pieces.size() && tokens.size() < size; i++) {
            tokens.add(pieces.get(i).getKey());
            scores.add((float) -i);
            types.add(1);
        }
        w.putString("tokenizer.ggml.model", "llama");
        put(w, tokens, scores, types);
        w.putU32("tokenizer.ggml.bos_token_id", 1);
        w.putU32("tokenizer.ggml.eos_token_id", 2);
        w.putU32("tokenizer.ggml.unknown_token_id", 0);
        w.putBool("tokenizer.ggml.add_bos_token", true);
        w.putBool("tokenizer.ggml.add_space_prefix", true);
    }

    /**
     * Byte-level BPE (tokenizer.ggml.model = gpt2) with {@code merges} merges learnt from the corpus split by
     * {@code pre} (a {@code tokenizer.ggml.pre} family: "llama-bpe", "qwen2", "smollm", ...), and the special tokens
     * of Qwen2 (for "qwen2") or Llama 3 (the others) appended.
     */
    public static void writeBpe(GgufWriter w, String corpus, int merges, String pre) {
        PreTokenizer p = PreTokenizer.of(pre);
        Map<String, Integer> vocab = new LinkedHashMap<>();
        for (int b = 0; b < 256; b++) {
            vocab.put(String.valueOf(ByteLevel.charOf(b)), vocab.size());
        }
        List<List<String>> words = new ArrayList<>();
        for (String word : p.split(corpus)) {
            String e = ByteLevel.encode(word);
            List<String> syms = new ArrayList<>();
            for (int i = 0; i < e.length(); i++) {
                syms.add(e.substring(i, i + 1));
            }
            words.add(syms);
        }
        List<String> mergeList = new ArrayList<>();
        for (int m = 0; m < merges; m++) {
            TreeMap<String, Integer> pairs = new TreeMap<>();
            for (List<String> syms : words) {
                for (int i = 1; i < syms.size(); i++) {
                    pairs.merge(syms.get(i - 1) + " " + syms.get(i), 1, Integer::sum);
                }
            }
            String best = null;
            int bestCount = 0; // pairs seen once merge too, so a small corpus still gives many merges
            for (Map.Entry<String, Integer> e : pairs.entrySet()) {
                if (e.getValue() > bestCount) {
                    best = e.getKey();
                    bestCount = e.getValue();
                }
            }
            if (best == null) {
                break;
            }
            mergeList.add(best);
            int sp = best.indexOf(' ');
            String l = best.substring(0, sp);
            String r = best.substring(sp + 1);
            vocab.putIfAbsent(l + r, vocab.size());
            for (List<String> syms : words) {
                for (int i = 1; i < syms.size(); i++) {
                    if (syms.get(i - 1).equals(l) && syms.get(i).equals(r)) {
                        syms.set(i - 1, l + r);
                        syms.remove(i);
                    }
                }
            }
        }
        List<String> tokens = new ArrayList<>(vocab.keySet());
        List<Integer> types = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            types.add(1);
        }
        boolean qwen = pre.equals("qwen2");
        List<String> specials = qwen ? List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>")
                : List.of("<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
                        "<|eot_id|>");
        int first = tokens.size();
        for (String s : specials) {
            tokens.add(s);
            types.add(3);
        }
        w.putString("tokenizer.ggml.model", "gpt2");
        w.putString("tokenizer.ggml.pre", pre);
        put(w, tokens, null, types);
        w.putArray("tokenizer.ggml.merges", GgufArray.ofStrings(mergeList.toArray(String[]::new)));
        if (qwen) {
            w.putU32("tokenizer.ggml.eos_token_id", first);
            w.putU32("tokenizer.ggml.bos_token_id", first);
            w.putU32("tokenizer.ggml.eot_token_id", first + 2);
            w.putBool("tokenizer.ggml.add_bos_token", false);
            w.putString("tokenizer.chat_template", "{% for message in messages %}<|im_start|>{{ message['role'] }}"
                    + "\n{{ message['content'] }}<|im_end|>\n{% endfor %}");
        } else {
            w.putU32("tokenizer.ggml.bos_token_id", first);
            w.putU32("tokenizer.ggml.eos_token_id", first + 1);
            w.putU32("tokenizer.ggml.eot_token_id", first + 4);
            w.putBool("tokenizer.ggml.add_bos_token", true);
            w.putString("tokenizer.chat_template", "{{ '<|start_header_id|>' + message['role'] + "
                    + "'<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}");
        }
    }

    private static void put(GgufWriter w, List<String> tokens, List<Float> scores, List<Integer> types) {
        w.putArray("tokenizer.ggml.tokens", GgufArray.ofStrings(tokens.toArray(String[]::new)));
        if (scores != null) {
            float[] s = new float[scores.size()];
            for (int i = 0; i < s.length; i++) {
                s[i] = scores.get(i);
            }
            w.putArray("tokenizer.ggml.scores", GgufArray.ofFloats(s));
        }
        int[] t = new int[types.size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = types.get(i);
        }
        w.putArray("tokenizer.ggml.token_type", GgufArray.of(GgufValueType.INT32, t));
    }
}
