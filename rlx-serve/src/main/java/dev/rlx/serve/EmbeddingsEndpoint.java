package dev.rlx.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rlx.onnx.text.Encoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutionException;

/**
 * {@code POST /v1/embeddings}: {@code input} (a string or an array of strings), {@code model},
 * {@code encoding_format} ({@code float} or {@code base64}: little-endian float32, as OpenAI sends it) and
 * {@code dimensions} (only the encoder's own). Answers OpenAI's list of embedding objects with usage.
 */
final class EmbeddingsEndpoint {
    private final String modelId;
    private final int dimensions;
    private final EmbeddingBatcher batcher;
    private final ServerMetrics metrics;
    private final int maxInputs;

    EmbeddingsEndpoint(String modelId, int dimensions, EmbeddingBatcher batcher, ServerMetrics metrics, int maxInputs) {
        this.modelId = modelId;
        this.dimensions = dimensions;
        this.batcher = batcher;
        this.metrics = metrics;
        this.maxInputs = maxInputs;
    }

    String modelId() {
        return modelId;
    }

    ObjectNode handle(ObjectNode body) throws InterruptedException {
        Fields f = new Fields(body);
        String model = f.requiredString("model");
        if (!model.equals(modelId)) {
            throw ApiError.notFound("the model '" + model + "' does not exist; this server embeds with '" + modelId + "'",
                    "model", "model_not_found");
        }
        List<String> texts = inputs(f.node("input"));
        String format = f.has("encoding_format") ? f.requiredString("encoding_format") : "float";
        if (!format.equals("float") && !format.equals("base64")) {
            throw ApiError.invalid("'encoding_format' must be 'float' or 'base64' but is '" + format + "'", "encoding_format");
        }
        int dims = f.integer("dimensions", dimensions, 1, Integer.MAX_VALUE);
        if (dims != dimensions) {
            throw ApiError.invalid("this model gives " + dimensions + " dimensions only, not " + dims, "dimensions");
        }
        List<Encoding> enc = batcher.encode(texts);
        int tokens = 0;
        for (Encoding e : enc) {
            tokens += e.length();
        }
        float[][] vectors;
        try {
            vectors = batcher.submit(enc).get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof ApiError a ? a : ApiError.internal("embedding failed: " + e.getCause());
        }
        metrics.add("rlx_embedding_inputs_total", texts.size());
        metrics.add("rlx_embedding_tokens_total", tokens);
        ObjectNode out = Json.object();
        out.put("object", "list");
        ArrayNode data = out.putArray("data");
        for (int i = 0; i < vectors.length; i++) {
            ObjectNode item = data.addObject();
            item.put("object", "embedding");
            item.put("index", i);
            if (format.equals("base64")) {
                ByteBuffer b = ByteBuffer.allocate(vectors[i].length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
                b.asFloatBuffer().put(vectors[i]);
                item.put("embedding", Base64.getEncoder().encodeToString(b.array()));
            } else {
                ArrayNode v = item.putArray("embedding");
                for (float x : vectors[i]) {
                    v.add(x);
                }
            }
        }
        out.put("model", modelId);
        ObjectNode usage = out.putObject("usage");
        usage.put("prompt_tokens", tokens);
        usage.put("total_tokens", tokens);
        return out;
    }

    private List<String> inputs(JsonNode input) {
        if (input == null) {
            throw ApiError.invalid("you must provide 'input'", "input");
        }
        List<String> texts = new ArrayList<>();
        if (input.isTextual()) {
            texts.add(input.textValue());
        } else if (input.isArray()) {
            for (JsonNode e : input) {
                if (!e.isTextual()) {
                    throw ApiError.invalid("'input' must be a string or an array of strings; token-id input needs the "
                            + "encoder's own vocabulary and is not accepted", "input");
                }
                texts.add(e.textValue());
            }
        } else {
            throw ApiError.invalid("'input' must be a string or an array of strings", "input");
        }
        if (texts.isEmpty()) {
            throw ApiError.invalid("'input' must not be empty", "input");
        }
        if (texts.size() > maxInputs) {
            throw ApiError.invalid("'input' holds " + texts.size() + " texts, more than this server's " + maxInputs, "input");
        }
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i).isEmpty()) {
                throw ApiError.invalid("'input[" + i + "]' is an empty string", "input");
            }
        }
        return texts;
    }
}
