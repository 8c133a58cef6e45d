package dev.rlx.llm.model;

import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.gguf.GgufTensor;
import dev.rlx.llm.kv.KvCacheConfig;
import dev.rlx.llm.kv.KvSequence;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.kv.PagedAttention;
import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.llm.kv.ScheduledBatch;
import dev.rlx.llm.model.LlamaModelException.Reason;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A llama-family decoder (Llama 2/3 incl. Llama 3 RoPE scaling, Mistral, Qwen2 with q/k/v biases, tied
 * embeddings) loaded from a GGUF file and run as RLX graphs over a {@link PagedKvCache}.
 *
 * <p>One {@link #forward} runs a whole scheduled batch (decode tokens and prefill chunks of many sequences) as
 * {@code T} token rows through {@code layers + 1} compiled graphs ({@link DecoderGraphs}); between them the new
 * keys and values are written into the cache from the host and {@link PagedAttention} attends each sequence over
 * its own history (GQA). Graphs are compiled per power of two of {@code T} (and of the sequence count for the
 * LM head) on first use and kept, so a few shapes serve a whole generation and a step allocates nothing once its
 * shapes are compiled. Every graph reads one weight set whose buffers are the file's mapping.
 *
 * <p>Not thread-safe: one {@code forward} at a time (the engine's step loop).
 */
public final class LlamaModel implements BatchForward {
    /** The default cap on the context when {@link Options#contextLength()} is 0, so KV memory stays bounded. */
    public static final int DEFAULT_CONTEXT_CAP = 4096;

    /**
     * How a model is run.
     *
     * @param threads CPU worker threads for the graphs and attention
     * @param kvStorage how the cache stores keys and values (all layers)
     * @param tokensPerBlock tokens per KV block
     * @param maxSequences most sequences in one batch
     * @param maxBatchTokens most tokens in one batch
     * @param contextLength most tokens per sequence, at most the model's; 0 = the model's, capped at
     *     {@link #DEFAULT_CONTEXT_CAP}
     * @param kvBlocks blocks in the cache; 0 = enough for {@code maxSequences} full contexts
     */
    public record Options(int threads, KvStorage kvStorage, int tokensPerBlock, int maxSequences, int maxBatchTokens,
                          int contextLength, int kvBlocks) {
        public Options {
            Objects.requireNonNull(kvStorage, "kvStorage");
            positive("threads", threads);
            positive("tokensPerBlock", tokensPerBlock);
            positive("maxSequences", maxSequences);
            positive("maxBatchTokens", maxBatchTokens);
            if (contextLength < 0 || kvBlocks < 0) {
                throw new LlamaModelException(Reason.BAD_OPTION, "contextLength " + contextLength + " and kvBlocks "
                        + kvBlocks + " must be >= 0 (0 = default)");
            }
            if (maxBatchTokens > 1 << 16 || maxSequences > 1 << 12) {
                throw new LlamaModelException(Reason.BAD_OPTION, "maxBatchTokens " + maxBatchTokens
                        + " (at most 65536) or maxSequences " + maxSequences + " (at most 4096) is too large");
            }
        }

        private static void positive(String name, int v) {
            if (v < 1) {
                throw new LlamaModelException(Reason.BAD_OPTION, name + " must be >= 1 but is " + v);
            }
        }

        /** All cores, an F16 cache (what llama.cpp keeps), 16-token blocks, 8 sequences, 512-token batches. */
        public static Options defaults() {
            return new Options(Math.max(1, Runtime.getRuntime().availableProcessors()), KvStorage.F16, 16, 8, 512,
                    0, 0);
        }

        public Options withThreads(int v) {
            return new Options(v, kvStorage, tokensPerBlock, maxSequences, maxBatchTokens, contextLength, kvBlocks);
        }

        public Options withKvStorage(KvStorage v) {
            return new Options(threads, v, tokensPerBlock, maxSequences, maxBatchTokens, contextLength, kvBlocks);
        }

        public Options withTokensPerBlock(int v) {
            return new Options(threads, kvStorage, v, maxSequences, maxBatchTokens, contextLength, kvBlocks);
        }

        public Options withMaxSequences(int v) {
            return new Options(threads, kvStorage, tokensPerBlock, v, maxBatchTokens, contextLength, kvBlocks);
        }

        public Options withMaxBatchTokens(int v) {
            return new Options(threads, kvStorage, tokensPerBlock, maxSequences, v, contextLength, kvBlocks);
        }

        public Options withContextLength(int v) {
            return new Options(threads, kvStorage, tokensPerBlock, maxSequences, maxBatchTokens, v, kvBlocks);
        }

        public Options withKvBlocks(int v) {
            return new Options(threads, kvStorage, tokensPerBlock, maxSequences, maxBatchTokens, contextLength, v);
        }
    }

    private final GgufFile file;
    private final boolean ownsFile;
    private final LlamaConfig config;
    private final Options options;
    private final int contextLength;
    private final Session session;
    private final LlamaWeights weights;
    private final TokenEmbedding embedding;
    private final RopeTable rope;
    private final DecoderGraphs graphs;
    private final PagedKvCache cache;
    private final PagedAttention attention;
    private final List<CompiledDecoder> decoders = new ArrayList<>();
    private final KvSequence[] seqs;
    private final int[] queryLens;
    private boolean closed;

    private LlamaModel(GgufFile file, boolean ownsFile, Options options) {
        this.file = file;
        this.ownsFile = ownsFile;
        this.options = Objects.requireNonNull(options, "options");
        String arch = file.metadata().getString("general.architecture", "");
        if (!LlamaConfig.supports(arch)) {
            throw new LlamaModelException(Reason.UNSUPPORTED_ARCHITECTURE, "general.architecture '" + arch
                    + "' of " + file.source() + " is not a llama-family decoder (" + LlamaConfig.ARCHITECTURES + ")");
        }
        GgufTensor embd = file.find("token_embd.weight");
        if (embd == null) {
            throw new LlamaModelException(Reason.MISSING_TENSOR, "tensor 'token_embd.weight' is missing from "
                    + file.source());
        }
        this.config = LlamaConfig.fromGguf(file.metadata(), (int) Math.min(Integer.MAX_VALUE, embd.dim(1)));
        this.contextLength = options.contextLength() > 0 ? Math.min(options.contextLength(), config.contextLength())
                : Math.min(config.contextLength(), DEFAULT_CONTEXT_CAP);
        this.session = new Session(Device.CPU, CompileOptions.defaults().withThreads(options.threads()));
        LlamaWeights w = null;
        PagedKvCache kv = null;
        try {
            w = new LlamaWeights(file, config, session);
            this.embedding = new TokenEmbedding(embd);
            this.rope = RopeTable.of(config, file.metadata(), file.find("rope_freqs.weight"), contextLength);
            this.graphs = new DecoderGraphs(config, w);
            int tpb = options.tokensPerBlock();
            long blocks = options.kvBlocks() > 0 ? options.kvBlocks()
                    : (long) options.maxSequences() * ((contextLength + tpb - 1) / tpb);
            if (blocks > Integer.MAX_VALUE) {
                throw new LlamaModelException(Reason.BAD_OPTION, blocks + " KV blocks do not fit an int; lower"
                        + " maxSequences or contextLength, or set kvBlocks");
            }
            kv = new PagedKvCache(KvCacheConfig.of(config.layers(), config.kvHeads(), config.headDim(), tpb,
                    (int) blocks, options.kvStorage()));
            this.attention = new PagedAttention(kv, config.heads(), (float) (1 / Math.sqrt(config.headDim())), session);
        } catch (RuntimeException e) {
            if (kv != null) {
                kv.close();
            }
            if (w != null) {
                w.close();
            }
            session.close();
            throw e;
        }
        this.weights = w;
        this.cache = kv;
        this.seqs = new KvSequence[options.maxSequences()];
        this.queryLens = new int[options.maxSequences()];
    }

    /** Opens {@code path} (memory-mapped) and loads the model; {@link #close()} closes the file too. */
    public static LlamaModel open(Path path, Options options) {
        GgufFile f = GgufFile.open(path);
        try {
            return new LlamaModel(f, true, options);
        } catch (RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /** Loads the model from an open file, which must stay open until this is closed (it is not closed here). */
    public static LlamaModel load(GgufFile file, Options options) {
        return new LlamaModel(file, false, options);
    }

    public LlamaConfig config() {
        return config;
    }

    public Options options() {
        return options;
    }

    /** Bytes of weights the graphs read (slices of the file's mapping, not copies). */
    public long weightBytes() {
        return weights.byteSize();
    }

    @Override
    public int vocabSize() {
        return config.vocabSize();
    }

    @Override
    public int contextLength() {
        return contextLength;
    }

    @Override
    public PagedKvCache cache() {
        return cache;
    }

    /** Compiles the graphs a batch of {@code tokens} tokens of {@code sequences} sequences uses, ahead of time. */
    public void warmUp(int tokens, int sequences) {
        checkOpen();
        checkSizes(tokens, sequences);
        decoder(capacity(tokens)).head(capacity(sequences));
    }

    @Override
    public void forward(ScheduledBatch batch, float[] logits) {
        checkOpen();
        List<ScheduledBatch.Entry> entries = batch.entries();
        int n = entries.size();
        if (n == 0) {
            return;
        }
        int vocab = config.vocabSize();
        int tokens = validate(entries);
        checkSizes(tokens, n);
        if (logits.length < (long) n * vocab) {
            throw bad("logits holds %d floats but %d entries x vocab %d need %d", logits.length, n, vocab,
                    (long) n * vocab);
        }
        CompiledDecoder d = decoder(capacity(tokens));
        CompiledDecoder.Head head = d.head(capacity(n));
        int dim = config.dim();
        int half = config.headDim() / 2;
        int row = 0;
        for (int i = 0; i < n; i++) {
            ScheduledBatch.Entry e = entries.get(i);
            seqs[i] = e.sequence();
            queryLens[i] = e.count();
            int[] ids = e.tokens();
            for (int t = 0; t < ids.length; t++, row++) {
                embedding.row(ids[t], d.x, row * dim);
                rope.copyRow(e.start() + t, d.cos, d.sin, row * half);
            }
            head.last()[i] = row - 1;
        }
        java.util.Arrays.fill(d.x, row * dim, d.x.length, 0f); // padding rows: finite, never read back
        java.util.Arrays.fill(head.last(), n, head.last().length, 0);
        runStage(d, 0);
        int layers = config.layers();
        for (int l = 0; l < layers; l++) {
            writeKv(entries, n, l, d);
            attention.forward(l, seqs, queryLens, n, d.q, d.att);
            if (l + 1 < layers) {
                runStage(d, l + 1);
            } else {
                CompiledGraph g = head.graph();
                g.setInput("x", d.x);
                g.setInput("att", d.att);
                g.setInput("last", head.last());
                g.run();
                g.output(0).copyTo(head.logits());
            }
        }
        System.arraycopy(head.logits(), 0, logits, 0, n * vocab);
        java.util.Arrays.fill(seqs, 0, n, null);
    }

    private void runStage(CompiledDecoder d, int layer) {
        CompiledGraph g = d.stages[layer];
        g.setInput("x", d.x);
        if (layer > 0) {
            g.setInput("att", d.att);
        }
        g.setInput("cos", d.cos);
        g.setInput("sin", d.sin);
        g.run();
        int o = 0;
        if (layer > 0) {
            g.output(o++).copyTo(d.x);
        }
        g.output(o++).copyTo(d.q);
        g.output(o++).copyTo(d.k);
        g.output(o).copyTo(d.v);
    }

    private void writeKv(List<ScheduledBatch.Entry> entries, int n, int layer, CompiledDecoder d) {
        int kvDim = config.kvDim();
        int row = 0;
        for (int i = 0; i < n; i++) {
            ScheduledBatch.Entry e = entries.get(i);
            cache.write(e.sequence(), layer, e.start(), e.count(), d.k, row * kvDim, d.v, row * kvDim);
            row += e.count();
        }
    }

    /** Checks every entry before anything is written: the cache is untouched by a batch that fails here. */
    private int validate(List<ScheduledBatch.Entry> entries) {
        long tokens = 0;
        int vocab = config.vocabSize();
        for (int i = 0; i < entries.size(); i++) {
            ScheduledBatch.Entry e = entries.get(i);
            KvSequence s = e.sequence();
            int end = e.start() + e.count();
            if (e.count() < 1 || e.start() < 0 || s.length() != end) {
                throw bad("entry %d (request %d): %d tokens at position %d must be the last of its sequence, which"
                        + " holds %d", i, e.requestId(), e.count(), e.start(), s.length());
            }
            if (end > contextLength) {
                throw bad("entry %d (request %d) reaches position %d, past the context length %d", i, e.requestId(),
                        end, contextLength);
            }
            for (int t : e.tokens()) {
                if (t < 0 || t >= vocab) {
                    throw bad("entry %d (request %d): token id %d is outside the vocabulary [0, %d)", i,
                            e.requestId(), t, vocab);
                }
            }
            tokens += e.count();
        }
        return (int) Math.min(Integer.MAX_VALUE, tokens);
    }

    private void checkSizes(int tokens, int sequences) {
        if (tokens < 1 || tokens > options.maxBatchTokens() || sequences < 1 || sequences > options.maxSequences()) {
            throw bad("a batch of %d tokens of %d sequences is outside [1, %d] tokens and [1, %d] sequences (Options)",
                    tokens, sequences, options.maxBatchTokens(), options.maxSequences());
        }
    }

    /** The decoder for a token capacity, compiled on first use. */
    private CompiledDecoder decoder(int tokens) {
        for (int i = 0; i < decoders.size(); i++) { // a few entries; no iterator: allocates nothing
            CompiledDecoder d = decoders.get(i);
            if (d.tokens == tokens) {
                return d;
            }
        }
        CompiledDecoder d = new CompiledDecoder(tokens, config, graphs, session, weights.set());
        decoders.add(d);
        return d;
    }

    /** The next power of two at or above {@code n} (n >= 1). */
    static int capacity(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    private static LlamaModelException bad(String format, Object... args) {
        return new LlamaModelException(Reason.BAD_BATCH, String.format(Locale.ROOT, format, args));
    }

    private void checkOpen() {
        if (closed) {
            throw new LlamaModelException(Reason.CLOSED, "the model is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        attention.close();
        for (CompiledDecoder d : decoders) {
            d.close();
        }
        decoders.clear();
        weights.close();
        cache.close();
        session.close();
        if (ownsFile) {
            file.close();
        }
    }
}
