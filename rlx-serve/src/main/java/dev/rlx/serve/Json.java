package dev.rlx.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/** The server's one JSON mapper, with the parse limits a request body gets, and the error object's shape. */
final class Json {
    /** Nesting deeper than this is no OpenAI request; the bound keeps a hostile body from exhausting the stack. */
    private static final int MAX_DEPTH = 64;

    static final ObjectMapper MAPPER = JsonMapper.builder(new com.fasterxml.jackson.core.JsonFactoryBuilder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build()).build())
            .build();

    private Json() {}

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** The body as a JSON object, or a 400 naming what is wrong with it. */
    static ObjectNode parseObject(byte[] body) {
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw ApiError.invalid("the request body is not valid JSON: " + e.getOriginalMessage(), null);
        } catch (java.io.IOException e) {
            throw ApiError.invalid("the request body could not be read: " + e.getMessage(), null);
        }
        if (node == null || !node.isObject()) {
            throw ApiError.invalid("the request body must be a JSON object", null);
        }
        return (ObjectNode) node;
    }

    static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            // a tree of our own making always serialises
            throw new IllegalStateException(e);
        }
    }

    static String text(JsonNode node) {
        return new String(bytes(node), StandardCharsets.UTF_8);
    }

    /** {@code {"error": {"message", "type", "param", "code"}}}, as the OpenAI API answers a refused request. */
    static ObjectNode error(ApiError e) {
        ObjectNode root = object();
        ObjectNode err = root.putObject("error");
        err.put("message", e.getMessage());
        err.put("type", e.type());
        err.put("param", e.param());
        err.put("code", e.code());
        return root;
    }
}
