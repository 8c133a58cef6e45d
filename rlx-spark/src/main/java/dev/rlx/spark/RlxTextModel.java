package dev.rlx.spark;

import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.onnx.text.BertTokenizer;
import dev.rlx.onnx.text.Encoding;
import dev.rlx.runtime.CompileCache;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.List;

/**
 * all-MiniLM-L6-v2 on RLX's CPU backend: per JVM the parsed model, its tokenizer, a compile cache of its own and
 * one copy of the weights; per task a {@link SentenceEmbedder} on a session with the task's thread count,
 * compiling through that cache and reading those weights, so each batch shape is verified, optimised and planned
 * once per JVM whichever task meets it first, and N concurrent tasks hold the weights once, not N times.
 *
 * @param model     the variant
 * @param maxLength tokens kept per text (0: the tokenizer's)
 */
public record RlxTextModel(MiniLm model, int maxLength) implements TextModel {
    /** Compiled shapes kept: sequence buckets times batch sizes, with room. */
    static final int CACHE_PROGRAMS = 256;

    @Override
    public String key() {
        return "rlx-embed:" + model.name().toLowerCase(java.util.Locale.ROOT) + ":max" + maxLength;
    }

    @Override
    public Loaded load() {
        OnnxModel m = model.model();
        BertTokenizer tok = maxLength > 0 ? model.tokenizer().withMaxLength(maxLength) : model.tokenizer();
        CompileCache cache = new CompileCache(CACHE_PROGRAMS);
        SharedWeights weights = new SharedWeights("rlx-embed " + model.name());
        return new Loaded() {
            @Override
            public BertTokenizer tokenizer() {
                return tok;
            }

            @Override
            public TextEncoder open(int threads) {
                Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(threads), cache);
                SentenceEmbedder e = new SentenceEmbedder(m, tok, s, weights.set());
                return new TextEncoder() {
                    @Override
                    public float[][] embed(List<Encoding> batch, int seq) {
                        return e.embedEncoded(batch, seq);
                    }

                    @Override
                    public void close() {
                        e.close();
                        s.close();
                    }
                };
            }

            @Override
            public long compiles() {
                return cache.misses();
            }

            @Override
            public long weightBytes() {
                return weights.set().byteSize();
            }

            @Override
            public void close() {
                cache.clear();
                weights.close();
            }
        };
    }
}
