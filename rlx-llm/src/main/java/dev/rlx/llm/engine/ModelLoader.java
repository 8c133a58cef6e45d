package dev.rlx.llm.engine;

import dev.rlx.ir.RlxException;
import dev.rlx.llm.engine.EngineException.Reason;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.model.LlamaConfig;
import dev.rlx.llm.model.LlamaModel;
import dev.rlx.llm.tokenizer.ChatTemplate;
import dev.rlx.llm.tokenizer.Tokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/** {@link LlmEngine#open}: a GGUF file to a {@link LlamaModel}, its tokenizer and what the engine reports. */
final class ModelLoader {
    /** Tokens per KV block: llama.cpp-sized pages, small enough that a short request wastes little. */
    static final int TOKENS_PER_BLOCK = 16;

    private ModelLoader() {}

    static LlmEngine open(Path gguf, EngineOptions options) {
        if (!Files.isRegularFile(gguf)) {
            throw new EngineException(Reason.MODEL_ERROR, "[LlmEngine] " + gguf + ": no such file");
        }
        GgufFile file = null;
        LlamaModel model = null;
        try {
            file = GgufFile.open(gguf);
            Tokenizer tokenizer = Tokenizer.fromGguf(file.metadata());
            KvStorage storage = KvStorage.valueOf(options.kvStorage().name());
            LlamaModel.Options mo = LlamaModel.Options.defaults().withThreads(options.threads())
                    .withKvStorage(storage).withTokensPerBlock(TOKENS_PER_BLOCK)
                    .withMaxSequences(options.maxSequences()).withMaxBatchTokens(options.maxBatchTokens())
                    .withContextLength(options.contextLength());
            if (options.kvCacheBytes() > 0) {
                mo = mo.withKvBlocks(blocksFor(file, tokenizer, storage, options.kvCacheBytes()));
            }
            model = LlamaModel.load(file, mo);
            String template = file.metadata().getString("tokenizer.chat_template", null);
            String name = file.metadata().getString("general.name", gguf.getFileName().toString());
            ModelInfo info = new ModelInfo(name, model.contextLength(), model.vocabSize(),
                    Optional.ofNullable(ChatTemplate.detect(template)), tokenizer.vocabulary().eos());
            return LlmEngine.of(model, tokenizer, info, options, file);
        } catch (RlxException e) {
            if (model != null) {
                model.close();
            }
            if (file != null) {
                file.close();
            }
            if (e instanceof EngineException ee) {
                throw ee;
            }
            throw new EngineException(Reason.MODEL_ERROR, "[LlmEngine] " + gguf + ": " + e.getMessage(), e);
        }
    }

    /** KV blocks that {@code bytes} pay for under this model's geometry (at least 1). */
    private static int blocksFor(GgufFile file, Tokenizer tokenizer, KvStorage storage, long bytes) {
        LlamaConfig c = LlamaConfig.fromGguf(file.metadata(), tokenizer.vocabulary().size());
        long perBlock = (long) c.layers() * 2 * c.kvHeads() * TOKENS_PER_BLOCK * storage.bytesFor(c.headDim());
        long blocks = Math.max(1, bytes / perBlock);
        if (blocks > Integer.MAX_VALUE) {
            throw new EngineException(Reason.INVALID_REQUEST, String.format(Locale.ROOT,
                    "[EngineOptions] kvCacheBytes %d make %d blocks, more than an int holds", bytes, blocks));
        }
        return (int) blocks;
    }
}
