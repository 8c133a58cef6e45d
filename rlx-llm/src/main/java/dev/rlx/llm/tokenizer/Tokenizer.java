package dev.rlx.llm.tokenizer;

import dev.rlx.llm.gguf.GgufMetadata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Text to token ids and back, as llama.cpp's {@code llama_tokenize} / {@code llama_detokenize} do for the same
 * vocabulary: the text is first split around special tokens (control tokens only when {@code parseSpecial}),
 * each raw fragment is tokenized by the model's algorithm ({@link SpmTokenizer}, {@link BpeTokenizer}), and BOS
 * / EOS are added by the vocabulary's rules when {@code addSpecial}. Instances are immutable and thread-safe.
 */
public abstract sealed class Tokenizer permits SpmTokenizer, BpeTokenizer {
    protected final Vocabulary vocab;

    Tokenizer(Vocabulary vocab) {
        this.vocab = vocab;
    }

    /** The tokenizer the metadata of a GGUF file describes. */
    public static Tokenizer fromGguf(GgufMetadata m) {
        Vocabulary v = Vocabulary.fromGguf(m);
        return v.model().equals("llama") ? new SpmTokenizer(v) : new BpeTokenizer(v);
    }

    public Vocabulary vocabulary() {
        return vocab;
    }

    /** {@code encode(text, true, true)}: BOS by the vocabulary's rule, special tokens in the text recognised. */
    public int[] encode(String text) {
        return encode(text, true, true);
    }

    public int[] encode(String text, boolean addSpecial, boolean parseSpecial) {
        List<Object> fragments = partition(text, parseSpecial);
        IntList out = new IntList();
        if (addSpecial && vocab.addBos()) {
            out.add(vocab.bos());
        }
        boolean prevSpecial = true;
        for (Object f : fragments) {
            if (f instanceof String s) {
                tokenize(s, prevSpecial, out);
                prevSpecial = false;
            } else {
                out.add((Integer) f);
                prevSpecial = true;
            }
        }
        if (addSpecial && vocab.addEos() && vocab.eos() >= 0) {
            out.add(vocab.eos());
        }
        return out.toArray();
    }

    /** Tokenizes one raw fragment; {@code afterSpecial} is true at the start and after a special token. */
    abstract void tokenize(String fragment, boolean afterSpecial, IntList out);

    /**
     * The bytes token {@code id} stands for: control tokens give nothing unless {@code special}, byte tokens their
     * byte, others their text as the model encodes it.
     */
    public abstract byte[] piece(int id, boolean special);

    /**
     * The text of {@code ids}, as {@code llama_detokenize(remove_special = true, unparse_special = false)}: a
     * leading BOS is dropped, control tokens give nothing, the space prefix the SentencePiece rule added is
     * removed; invalid UTF-8 becomes U+FFFD.
     */
    public String decode(int[] ids) {
        TokenStream s = stream();
        StringBuilder sb = new StringBuilder();
        for (int id : ids) {
            sb.append(s.next(id));
        }
        return sb.append(s.finish()).toString();
    }

    /** A streaming decoder for one sequence (see {@link TokenStream}). */
    public TokenStream stream() {
        return new TokenStream(this);
    }

    /** Whether the first piece of a decoded sequence drops one leading space (SentencePiece's added prefix). */
    boolean stripsLeadingSpace() {
        return false;
    }

    /**
     * llama.cpp's {@code tokenizer_st_partition}: for each special token, longest first, every occurrence in the
     * remaining raw text becomes that token. Control and unknown tokens only when {@code parseSpecial};
     * user-defined tokens always. Returns Strings (raw text) and Integers (token ids) in order.
     */
    private List<Object> partition(String text, boolean parseSpecial) {
        List<Object> frags = new ArrayList<>();
        if (text.isEmpty()) {
            return frags;
        }
        frags.add(text);
        for (int id : vocab.specials()) {
            TokenType t = vocab.type(id);
            if (!parseSpecial && t != TokenType.USER_DEFINED) {
                continue;
            }
            String sp = vocab.token(id);
            List<Object> next = new ArrayList<>(frags.size());
            for (Object f : frags) {
                if (!(f instanceof String s)) {
                    next.add(f);
                    continue;
                }
                int from = 0;
                int at;
                while ((at = s.indexOf(sp, from)) >= 0) {
                    if (at > from) {
                        next.add(s.substring(from, at));
                    }
                    next.add(id);
                    from = at + sp.length();
                }
                if (from < s.length()) {
                    next.add(s.substring(from));
                }
            }
            frags = next;
        }
        return frags;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A growable int array (token ids). */
    static final class IntList {
        private int[] a = new int[16];
        private int n;

        void add(int v) {
            if (n == a.length) {
                a = java.util.Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        int[] toArray() {
            return java.util.Arrays.copyOf(a, n);
        }
    }
}
