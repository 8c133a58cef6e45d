package dev.rlx.onnx.text;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A BERT WordPiece tokenizer read from a Hugging Face {@code tokenizer.json}: special tokens matched in the
 * raw text, {@link BertNormalizer}, {@link BertPreTokenizer}, {@link WordPiece}, then {@code [CLS] ... [SEP]}
 * with token type 0, truncated to the file's {@code truncation.max_length} (special tokens included).
 *
 * <pre>{@code
 * BertTokenizer t = BertTokenizer.read(Path.of("tokenizer.json"));
 * Encoding e = t.encode("Hello, world!");   // [CLS] hello , world ! [SEP] = [101, 7592, 1010, 2088, 999, 102]
 * }</pre>
 *
 * <p>The file's fixed padding is not applied: {@link Encoding#padTo} pads a batch to its longest member, which
 * gives an encoder the same result for the real tokens at less cost. Immutable and thread-safe.
 */
public final class BertTokenizer {
    /** Longest {@code tokenizer.json} read (the BERT vocabularies are under 1 MiB). */
    public static final int MAX_FILE_BYTES = 64 << 20;

    private final BertNormalizer normalizer;
    private final WordPiece wordPiece;
    private final Map<String, Integer> specials; // added tokens matched in the raw text, content -> id
    private final int maxLength;
    private final String padToken;

    private BertTokenizer(BertNormalizer normalizer, WordPiece wordPiece, Map<String, Integer> specials, int maxLength,
                          String padToken) {
        this.normalizer = normalizer;
        this.wordPiece = wordPiece;
        this.specials = specials;
        this.maxLength = maxLength;
        this.padToken = padToken;
    }

    /** Reads a {@code tokenizer.json} file. */
    public static BertTokenizer read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        } catch (IOException e) {
            throw new TokenizerException("cannot read tokenizer file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads a {@code tokenizer.json} document from {@code in}; {@code name} says where it came from in errors.
     *
     * @throws TokenizerException if the JSON is malformed, or its model, normaliser, pre-tokenizer or
     *     post-processor is not BERT's WordPiece setup
     */
    public static BertTokenizer read(InputStream in, String name) {
        try {
            byte[] bytes = in.readNBytes(MAX_FILE_BYTES + 1);
            if (bytes.length > MAX_FILE_BYTES) {
                throw new TokenizerException(name + ": larger than " + MAX_FILE_BYTES + " bytes");
            }
            return new FileReader(name).read(bytes);
        } catch (IOException e) {
            throw new TokenizerException(name + ": not a valid tokenizer.json (" + e.getMessage() + ")", e);
        }
    }

    /** Tokens are truncated so that an encoding, {@code [CLS]} and {@code [SEP]} included, has at most this many. */
    public int maxLength() {
        return maxLength;
    }

    /** This tokenizer truncating to {@code n} tokens instead (at least 2: {@code [CLS]} and {@code [SEP]}). */
    public BertTokenizer withMaxLength(int n) {
        if (n < 2) {
            throw new TokenizerException("max length " + n + " leaves no room for [CLS] and [SEP]; it must be >= 2");
        }
        return new BertTokenizer(normalizer, wordPiece, specials, n, padToken);
    }

    public int vocabSize() {
        return wordPiece.vocab().size();
    }

    /** The id of vocabulary entry {@code token}. */
    public int id(String token) {
        Integer id = wordPiece.vocab().get(token);
        if (id == null) {
            throw new TokenizerException("'" + token + "' is not in the vocabulary");
        }
        return id;
    }

    /** The id of the padding token. */
    public int padId() {
        return id(padToken);
    }

    public String padToken() {
        return padToken;
    }

    /** The word pieces of {@code text}, without {@code [CLS]}/{@code [SEP]} and without truncation. */
    public List<String> tokenize(String text) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < text.length(); ) {
            String special = specialAt(text, i);
            if (special == null) {
                i++;
                continue;
            }
            words(text.substring(from, i), out);
            out.add(special);
            i += special.length();
            from = i;
        }
        words(text.substring(from), out);
        return out;
    }

    /** {@code [CLS]}, the word pieces of {@code text} (truncated to {@link #maxLength()}), {@code [SEP]}. */
    public Encoding encode(String text) {
        List<String> pieces = tokenize(text);
        List<String> tokens = new ArrayList<>(Math.min(pieces.size(), maxLength - 2) + 2);
        tokens.add("[CLS]");
        tokens.addAll(pieces.subList(0, Math.min(pieces.size(), maxLength - 2)));
        tokens.add("[SEP]");
        int[] ids = new int[tokens.size()];
        int[] ones = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = id(tokens.get(i));
            ones[i] = 1;
        }
        return new Encoding(ids, new int[ids.length], ones, tokens);
    }

    private String specialAt(String text, int i) {
        String best = null;
        for (String s : specials.keySet()) {
            if (text.startsWith(s, i) && (best == null || s.length() > best.length())) {
                best = s;
            }
        }
        return best;
    }

    private void words(String raw, List<String> out) {
        for (String w : BertPreTokenizer.split(normalizer.normalize(raw))) {
            wordPiece.split(w, out);
        }
    }

    /** Reads the fields of a {@code tokenizer.json} that a BERT WordPiece tokenizer has. */
    private static final class FileReader {
        private static final JsonFactory JSON = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build();

        private final String name;
        private BertNormalizer normalizer;
        private boolean preTokenizer;
        private boolean postProcessor;
        private Map<String, Integer> vocab;
        private String unknown = "[UNK]";
        private String prefix = "##";
        private int maxChars = 100;
        private int maxLength = 512;
        private String padToken = "[PAD]";
        private String modelType;
        private final Map<String, Integer> specials = new LinkedHashMap<>();

        FileReader(String name) {
            this.name = name;
        }

        private interface Fields {
            void field(String field) throws IOException;
        }

        BertTokenizer read(byte[] bytes) throws IOException {
            try (JsonParser p = JSON.createParser(bytes)) {
                p.nextToken();
                object(p, "the document", f -> {
                    switch (f) {
                        case "added_tokens" -> addedTokens(p);
                        case "normalizer" -> normalizer(p);
                        case "pre_tokenizer" -> preTokenizer = typeIs(p, "pre_tokenizer", "BertPreTokenizer");
                        case "post_processor" -> postProcessor = typeIs(p, "post_processor", "TemplateProcessing",
                                "BertProcessing");
                        case "model" -> model(p);
                        case "truncation" -> truncation(p);
                        case "padding" -> padding(p);
                        default -> p.skipChildren();
                    }
                });
            }
            if (!"WordPiece".equals(modelType)) {
                throw fail("model.type is " + modelType + "; only WordPiece is supported");
            }
            if (vocab == null || vocab.isEmpty()) {
                throw fail("model.vocab is missing or empty");
            }
            if (normalizer == null || !preTokenizer || !postProcessor) {
                throw fail("needs a BertNormalizer, a BertPreTokenizer and a [CLS]/[SEP] post_processor");
            }
            for (String t : List.of(unknown, "[CLS]", "[SEP]", padToken)) {
                if (!vocab.containsKey(t)) {
                    throw fail("the vocabulary has no '" + t + "'");
                }
            }
            specials.forEach((content, id) -> vocab.putIfAbsent(content, id));
            return new BertTokenizer(normalizer, new WordPiece(vocab, unknown, prefix, maxChars), Map.copyOf(specials),
                    maxLength, padToken);
        }

        private void addedTokens(JsonParser p) throws IOException {
            expect(p, JsonToken.START_ARRAY, "added_tokens");
            while (p.nextToken() == JsonToken.START_OBJECT) {
                String[] content = new String[1];
                int[] id = {-1};
                boolean[] special = new boolean[1];
                object(p, "added_tokens[]", f -> {
                    switch (f) {
                        case "content" -> content[0] = text(p, "added_tokens[].content");
                        case "id" -> id[0] = integer(p, "added_tokens[].id");
                        case "special" -> special[0] = p.getValueAsBoolean();
                        default -> p.skipChildren();
                    }
                });
                if (content[0] == null || content[0].isEmpty() || id[0] < 0) {
                    throw fail("an added token lacks its content or id");
                }
                if (special[0]) {
                    specials.put(content[0], id[0]);
                }
            }
        }

        private void normalizer(JsonParser p) throws IOException {
            boolean[] flags = {true, true, false, true}; // clean_text, handle_chinese_chars, strip set, lowercase
            Boolean[] strip = {null};
            String[] type = {null};
            object(p, "normalizer", f -> {
                switch (f) {
                    case "type" -> type[0] = text(p, "normalizer.type");
                    case "clean_text" -> flags[0] = p.getValueAsBoolean();
                    case "handle_chinese_chars" -> flags[1] = p.getValueAsBoolean();
                    case "strip_accents" -> strip[0] = p.currentToken() == JsonToken.VALUE_NULL ? null : p.getValueAsBoolean();
                    case "lowercase" -> flags[3] = p.getValueAsBoolean();
                    default -> p.skipChildren();
                }
            });
            if (!"BertNormalizer".equals(type[0])) {
                throw fail("normalizer.type is " + type[0] + "; only BertNormalizer is supported");
            }
            // strip_accents null means "as lowercase", as in the original BERT
            normalizer = new BertNormalizer(flags[0], flags[1], strip[0] == null ? flags[3] : strip[0], flags[3]);
        }

        private void model(JsonParser p) throws IOException {
            object(p, "model", f -> {
                switch (f) {
                    case "type" -> modelType = text(p, "model.type");
                    case "unk_token" -> unknown = text(p, "model.unk_token");
                    case "continuing_subword_prefix" -> prefix = text(p, "model.continuing_subword_prefix");
                    case "max_input_chars_per_word" -> maxChars = integer(p, "model.max_input_chars_per_word");
                    case "vocab" -> {
                        vocab = new HashMap<>(64 << 10);
                        object(p, "model.vocab", token -> vocab.put(token, integer(p, "model.vocab." + token)));
                    }
                    default -> p.skipChildren();
                }
            });
        }

        private void truncation(JsonParser p) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_NULL) {
                return;
            }
            object(p, "truncation", f -> {
                if (f.equals("max_length")) {
                    maxLength = integer(p, "truncation.max_length");
                    if (maxLength < 2) {
                        throw fail("truncation.max_length is " + maxLength + "; it must leave room for [CLS] and [SEP]");
                    }
                } else {
                    p.skipChildren();
                }
            });
        }

        private void padding(JsonParser p) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_NULL) {
                return;
            }
            object(p, "padding", f -> {
                if (f.equals("pad_token")) {
                    padToken = text(p, "padding.pad_token");
                } else {
                    p.skipChildren();
                }
            });
        }

        private boolean typeIs(JsonParser p, String where, String... accepted) throws IOException {
            String[] type = {null};
            object(p, where, f -> {
                if (f.equals("type")) {
                    type[0] = text(p, where + ".type");
                } else {
                    p.skipChildren();
                }
            });
            if (!List.of(accepted).contains(type[0])) {
                throw fail(where + ".type is " + type[0] + "; supported: " + String.join(", ", accepted));
            }
            return true;
        }

        private void object(JsonParser p, String where, Fields fields) throws IOException {
            expect(p, JsonToken.START_OBJECT, where);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                p.nextToken();
                fields.field(f);
            }
            expect(p, JsonToken.END_OBJECT, where);
        }

        private void expect(JsonParser p, JsonToken t, String where) {
            if (p.currentToken() != t) {
                throw fail(where + " should be " + t + " but is " + p.currentToken());
            }
        }

        private String text(JsonParser p, String where) {
            expect(p, JsonToken.VALUE_STRING, where);
            try {
                return p.getText();
            } catch (IOException e) {
                throw fail(where + ": " + e.getMessage());
            }
        }

        private int integer(JsonParser p, String where) throws IOException {
            expect(p, JsonToken.VALUE_NUMBER_INT, where);
            long v = p.getLongValue();
            if (v < 0 || v > Integer.MAX_VALUE) {
                throw fail(where + " is " + v + "; expected 0.." + Integer.MAX_VALUE);
            }
            return (int) v;
        }

        private TokenizerException fail(String what) {
            return new TokenizerException(name + ": " + what);
        }
    }
}
