package dev.rlx.llm.tokenizer;

import dev.rlx.llm.gguf.GgufArray;
import dev.rlx.llm.gguf.GgufMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tokens of a model as GGUF stores them ({@code tokenizer.ggml.*}): texts, scores, types, the special ids
 * and the BOS/EOS/space-prefix rules, with the defaults llama.cpp applies when a key is absent.
 */
public final class Vocabulary {
    private final String model;
    private final String pre;
    private final String[] tokens;
    private final float[] scores;
    private final TokenType[] types;
    private final Map<String, Integer> ids;
    private final int bos;
    private final int eos;
    private final int eot;
    private final int unk;
    private final boolean addBos;
    private final boolean addEos;
    private final boolean addSpacePrefix;
    private final List<Integer> specials;
    private final String[] merges;

    Vocabulary(String model, String pre, String[] tokens, float[] scores, TokenType[] types, String[] merges,
               int bos, int eos, int eot, int unk, boolean addBos, boolean addEos, boolean addSpacePrefix) {
        this.model = model;
        this.pre = pre;
        this.tokens = tokens;
        this.scores = scores;
        this.types = types;
        this.merges = merges;
        this.bos = bos;
        this.eos = eos;
        this.eot = eot;
        this.unk = unk;
        this.addBos = addBos;
        this.addEos = addEos;
        this.addSpacePrefix = addSpacePrefix;
        this.ids = new HashMap<>(tokens.length * 2);
        for (int i = 0; i < tokens.length; i++) {
            ids.putIfAbsent(tokens[i], i); // the first id of a duplicated text wins, as llama.cpp's map
        }
        List<Integer> sp = new ArrayList<>();
        for (int i = 0; i < tokens.length; i++) {
            if (types[i].special() && !tokens[i].isEmpty()) {
                sp.add(i);
            }
        }
        // longest first, so "<|im_start|>" wins over a shorter special that is its prefix
        sp.sort((a, b) -> tokens[b].length() != tokens[a].length() ? tokens[b].length() - tokens[a].length()
                : Integer.compare(a, b));
        this.specials = List.copyOf(sp);
    }

    /** Reads the vocabulary keys of {@code m}; every id is checked against the token count. */
    public static Vocabulary fromGguf(GgufMetadata m) {
        String model = m.getString("tokenizer.ggml.model");
        String pre = m.getString("tokenizer.ggml.pre", "default");
        String[] tokens = m.getArray("tokenizer.ggml.tokens").asStrings();
        int n = tokens.length;
        if (n == 0) {
            throw new TokenizerException("tokenizer.ggml.tokens is empty");
        }
        float[] scores = new float[n];
        if (m.has("tokenizer.ggml.scores")) {
            GgufArray a = m.getArray("tokenizer.ggml.scores");
            if (a.size() != n) {
                throw new TokenizerException("tokenizer.ggml.scores has " + a.size() + " entries for " + n + " tokens");
            }
            scores = a.asFloats();
        }
        TokenType[] types = new TokenType[n];
        Arrays.fill(types, TokenType.NORMAL);
        if (m.has("tokenizer.ggml.token_type")) {
            GgufArray a = m.getArray("tokenizer.ggml.token_type");
            if (a.size() != n) {
                throw new TokenizerException("tokenizer.ggml.token_type has " + a.size() + " entries for " + n
                        + " tokens");
            }
            for (int i = 0; i < n; i++) {
                types[i] = TokenType.ofId(a.getLong(i));
            }
        }
        String[] merges = m.has("tokenizer.ggml.merges") ? m.getArray("tokenizer.ggml.merges").asStrings()
                : new String[0];
        boolean spm = model.equals("llama");
        if (!spm && !model.equals("gpt2")) {
            throw new TokenizerException("tokenizer.ggml.model '" + model + "' is not supported (llama, gpt2)");
        }
        int bos = id(m, "tokenizer.ggml.bos_token_id", n, spm ? 1 : -1);
        int eos = id(m, "tokenizer.ggml.eos_token_id", n, spm ? 2 : -1);
        int eot = id(m, "tokenizer.ggml.eot_token_id", n, -1);
        int unk = id(m, "tokenizer.ggml.unknown_token_id", n, spm ? 0 : -1);
        boolean addBos = m.getBool("tokenizer.ggml.add_bos_token", spm);
        boolean addEos = m.getBool("tokenizer.ggml.add_eos_token", false);
        boolean addSpacePrefix = m.getBool("tokenizer.ggml.add_space_prefix", spm);
        if (addBos && bos < 0) {
            throw new TokenizerException("tokenizer.ggml.add_bos_token is set but there is no bos_token_id");
        }
        return new Vocabulary(model, pre, tokens, scores, types, merges, bos, eos, eot, unk, addBos, addEos,
                addSpacePrefix);
    }

    private static int id(GgufMetadata m, String key, int n, int fallback) {
        if (!m.has(key)) {
            return fallback < n ? fallback : -1;
        }
        long v = m.getLong(key);
        if (v < 0 || v >= n) {
            throw new TokenizerException(key + " = " + v + " is not a token id (the vocabulary has " + n + ")");
        }
        return (int) v;
    }

    /** {@code llama} (SentencePiece-style) or {@code gpt2} (byte-level BPE). */
    public String model() {
        return model;
    }

    /** {@code tokenizer.ggml.pre}: which pre-tokenizer splits text before BPE. */
    public String pre() {
        return pre;
    }

    public int size() {
        return tokens.length;
    }

    public String token(int id) {
        check(id);
        return tokens[id];
    }

    public float score(int id) {
        check(id);
        return scores[id];
    }

    public TokenType type(int id) {
        check(id);
        return types[id];
    }

    /** The id of the token whose text is {@code text}, or -1. */
    public int id(String text) {
        Integer i = ids.get(text);
        return i == null ? -1 : i;
    }

    String[] merges() {
        return merges;
    }

    /** Special tokens (control, user-defined, unknown) longest text first. */
    List<Integer> specials() {
        return specials;
    }

    public int bos() {
        return bos;
    }

    public int eos() {
        return eos;
    }

    /** End of turn ({@code <|eot_id|>}, {@code <|im_end|>}), or -1. */
    public int eot() {
        return eot;
    }

    public int unk() {
        return unk;
    }

    public boolean addBos() {
        return addBos;
    }

    public boolean addEos() {
        return addEos;
    }

    public boolean addSpacePrefix() {
        return addSpacePrefix;
    }

    /** Whether generation should stop at {@code id}: EOS, EOT, or any other control token ending a turn. */
    public boolean isEndOfGeneration(int id) {
        return id >= 0 && (id == eos || id == eot);
    }

    void check(int id) {
        if (id < 0 || id >= tokens.length) {
            throw new TokenizerException("token id " + id + " is outside the vocabulary of " + tokens.length);
        }
    }
}
