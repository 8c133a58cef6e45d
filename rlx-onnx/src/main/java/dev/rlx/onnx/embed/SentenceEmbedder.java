package dev.rlx.onnx.embed;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxImportException;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.onnx.OnnxValueInfo;
import dev.rlx.onnx.text.BertTokenizer;
import dev.rlx.onnx.text.Encoding;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sentence embeddings from a BERT-style ONNX encoder, as sentence-transformers computes them: tokenize, run
 * the encoder on the batch (padded to its longest text), average {@code last_hidden_state} over each text's
 * real tokens (the attention mask), and scale to unit length.
 *
 * <pre>{@code
 * try (Session s = new Session(Device.CPU); SentenceEmbedder e = SentenceEmbedder.of(MiniLm.FP32, s)) {
 *     float[][] v = e.embed(List.of("A cat sits.", "A kitten is sitting."));
 *     double sim = SentenceEmbedder.cosine(v[0], v[1]);
 * }
 * }</pre>
 *
 * <p>Each batch shape is imported and compiled once and kept, all of them reading one copy of the weights (see
 * {@link OnnxRunner}). Not thread-safe.
 */
public final class SentenceEmbedder implements AutoCloseable {
    private static final Set<String> INPUTS = Set.of("input_ids", "attention_mask", "token_type_ids");

    private final BertTokenizer tokenizer;
    private final OnnxRunner runner;
    private final boolean typeIds;

    /**
     * An embedder running {@code model} on {@code session}.
     *
     * @throws OnnxImportException if the model's inputs are not BERT's ({@code input_ids}, {@code attention_mask}
     *     and optionally {@code token_type_ids})
     */
    public SentenceEmbedder(OnnxModel model, BertTokenizer tokenizer, Session session) {
        this(model, tokenizer, session, null);
    }

    /**
     * An embedder whose graphs read {@code sharedWeights} (null: a set of its own), which other embedders of the
     * same model, one per thread, share: the weights are held once (see {@link OnnxRunner}).
     *
     * @throws OnnxImportException if the model's inputs are not BERT's
     */
    public SentenceEmbedder(OnnxModel model, BertTokenizer tokenizer, Session session, WeightSet sharedWeights) {
        List<String> names = model.inputs().stream().map(OnnxValueInfo::name).toList();
        if (!names.contains("input_ids") || !names.contains("attention_mask") || !INPUTS.containsAll(names)) {
            throw new OnnxImportException("a sentence encoder takes input_ids, attention_mask and optionally "
                    + "token_type_ids, but this model's inputs are " + names);
        }
        this.tokenizer = tokenizer;
        this.runner = sharedWeights == null ? new OnnxRunner(model, session)
                : new OnnxRunner(model, session, OnnxBinding.none(), sharedWeights);
        this.typeIds = names.contains("token_type_ids");
    }

    /** An embedder for a packaged MiniLM model with its tokenizer. */
    public static SentenceEmbedder of(MiniLm which, Session session) {
        return new SentenceEmbedder(which.model(), which.tokenizer(), session);
    }

    public BertTokenizer tokenizer() {
        return tokenizer;
    }

    /** What the embedder holds: each batch shape compiled so far, and the encoder's weights once. */
    public String memoryReport() {
        return runner.memoryReport();
    }

    /** One unit-length embedding per text, in order. */
    public float[][] embed(List<String> texts) {
        if (texts.isEmpty()) {
            return new float[0][];
        }
        List<Encoding> enc = new ArrayList<>(texts.size());
        int seq = 0;
        for (String t : texts) {
            Encoding e = tokenizer.encode(t);
            enc.add(e);
            seq = Math.max(seq, e.length());
        }
        return embedEncoded(enc, seq);
    }

    /**
     * One unit-length embedding per encoding (from this embedder's {@link #tokenizer()}), in order, the batch
     * padded to {@code seq} tokens. Callers that batch many texts choose {@code seq} themselves (e.g. rounded up to
     * a bucket, so that a few compiled shapes serve every batch); padding does not change an embedding beyond
     * float rounding.
     *
     * @throws OnnxImportException if {@code seq} is shorter than an encoding
     */
    public float[][] embedEncoded(List<Encoding> enc, int seq) {
        if (enc.isEmpty()) {
            return new float[0][];
        }
        for (int b = 0; b < enc.size(); b++) {
            if (enc.get(b).length() > seq) {
                throw new OnnxImportException("encoding [" + b + "] has " + enc.get(b).length() + " tokens, more than the "
                        + seq + " the batch is padded to");
            }
        }
        int batch = enc.size();
        long[] ids = new long[batch * seq];
        long[] mask = new long[batch * seq];
        long[] types = new long[batch * seq];
        for (int b = 0; b < batch; b++) {
            Encoding e = enc.get(b).padTo(seq, tokenizer.padId(), tokenizer.padToken());
            int[] id = e.ids();
            int[] m = e.attentionMask();
            int[] ty = e.typeIds();
            for (int i = 0; i < seq; i++) {
                ids[b * seq + i] = id[i];
                mask[b * seq + i] = m[i];
                types[b * seq + i] = ty[i];
            }
        }
        Map<String, Tensor> in = new LinkedHashMap<>();
        in.put("input_ids", Tensor.of(ids, batch, seq));
        in.put("attention_mask", Tensor.of(mask, batch, seq));
        if (typeIds) {
            in.put("token_type_ids", Tensor.of(types, batch, seq));
        }
        Map<String, Tensor> out = runner.run(in);
        Tensor hidden = out.containsKey("last_hidden_state") ? out.get("last_hidden_state") : out.values().iterator().next();
        if (hidden.shape().rank() != 3 || hidden.shape().dim(0) != batch || hidden.shape().dim(1) != seq) {
            throw new OnnxImportException("expected a hidden state [" + batch + ", " + seq + ", dim] but the model gave "
                    + hidden.shape());
        }
        return pool(hidden.toFloatArray(), mask, batch, seq, hidden.shape().dim(2));
    }

    /** Per batch row: the mean of {@code hidden [batch, seq, dim]} over the positions where mask is 1, normalised. */
    public static float[][] pool(float[] hidden, long[] mask, int batch, int seq, int dim) {
        float[][] out = new float[batch][dim];
        for (int b = 0; b < batch; b++) {
            double[] sum = new double[dim];
            double count = 0;
            for (int t = 0; t < seq; t++) {
                if (mask[b * seq + t] == 0) {
                    continue;
                }
                count++;
                int base = (b * seq + t) * dim;
                for (int d = 0; d < dim; d++) {
                    sum[d] += hidden[base + d];
                }
            }
            double norm = 0;
            for (int d = 0; d < dim; d++) {
                sum[d] /= Math.max(count, 1e-9); // sentence-transformers' clamp
                norm += sum[d] * sum[d];
            }
            norm = Math.max(Math.sqrt(norm), 1e-12); // torch.nn.functional.normalize's eps
            for (int d = 0; d < dim; d++) {
                out[b][d] = (float) (sum[d] / norm);
            }
        }
        return out;
    }

    /** The cosine similarity of two vectors of equal length. */
    public static double cosine(float[] a, float[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("vectors differ in length: " + a.length + " and " + b.length);
        }
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        return dot / Math.max(Math.sqrt(na * nb), 1e-300);
    }

    @Override
    public void close() {
        runner.close();
    }
}
