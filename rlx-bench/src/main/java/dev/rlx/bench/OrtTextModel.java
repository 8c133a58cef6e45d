package dev.rlx.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.onnx.text.BertTokenizer;
import dev.rlx.onnx.text.Encoding;
import dev.rlx.spark.TextEncoder;
import dev.rlx.spark.TextModel;
import java.nio.LongBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * all-MiniLM-L6-v2 on ONNX Runtime's CPU provider, as a {@link TextModel}, so the Spark benchmark runs the very
 * same tokenization, batches and pooling as RLX and only the encoder differs: per executor JVM one ORT session
 * per thread count (ORT sessions run concurrent calls), its intra-op threads the task's CPUs.
 */
record OrtTextModel(MiniLm model) implements TextModel {
    @Override
    public String key() {
        return "ort-embed:" + model.name();
    }

    @Override
    public Loaded load() {
        byte[] bytes = model.modelBytes();
        BertTokenizer tok = model.tokenizer();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Map<Integer, OrtSession> sessions = new ConcurrentHashMap<>();
        return new Loaded() {
            @Override
            public BertTokenizer tokenizer() {
                return tok;
            }

            @Override
            public TextEncoder open(int threads) {
                OrtSession s = sessions.computeIfAbsent(threads, t -> {
                    try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
                        o.setIntraOpNumThreads(t);
                        o.setInterOpNumThreads(1);
                        o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
                        return env.createSession(bytes, o);
                    } catch (OrtException e) {
                        throw new IllegalStateException("ONNX Runtime cannot load " + model, e);
                    }
                });
                return new TextEncoder() {
                    @Override
                    public float[][] embed(List<Encoding> batch, int seq) {
                        return run(env, s, tok, batch, seq);
                    }

                    @Override
                    public void close() {
                        // the session is the JVM's, shared by every task
                    }
                };
            }

            @Override
            public long compiles() {
                return sessions.size();
            }

            @Override
            public void close() {
                for (OrtSession s : sessions.values()) {
                    try {
                        s.close();
                    } catch (OrtException e) {
                        // closing at the end of a benchmark; nothing to do
                    }
                }
            }
        };
    }

    private static float[][] run(OrtEnvironment env, OrtSession s, BertTokenizer tok, List<Encoding> batch, int seq) {
        int b = batch.size();
        long[] ids = new long[b * seq];
        long[] mask = new long[b * seq];
        long[] types = new long[b * seq];
        for (int r = 0; r < b; r++) {
            Encoding e = batch.get(r).padTo(seq, tok.padId(), tok.padToken());
            for (int i = 0; i < seq; i++) {
                ids[r * seq + i] = e.ids()[i];
                mask[r * seq + i] = e.attentionMask()[i];
                types[r * seq + i] = e.typeIds()[i];
            }
        }
        long[] dims = {b, seq};
        try (OnnxTensor i = OnnxTensor.createTensor(env, LongBuffer.wrap(ids), dims);
             OnnxTensor m = OnnxTensor.createTensor(env, LongBuffer.wrap(mask), dims);
             OnnxTensor t = OnnxTensor.createTensor(env, LongBuffer.wrap(types), dims);
             OrtSession.Result out = s.run(Map.of("input_ids", i, "attention_mask", m, "token_type_ids", t))) {
            OnnxTensor hidden = (OnnxTensor) out.get(0);
            float[] h = new float[b * seq * MiniLm.DIM];
            hidden.getFloatBuffer().get(h);
            return SentenceEmbedder.pool(h, mask, b, seq, MiniLm.DIM);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed on a batch of " + b + " x " + seq, e);
        }
    }
}
