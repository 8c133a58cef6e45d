package dev.rlx.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed reads of a request's fields: each either gives a value in range or throws a 400 {@link ApiError} naming
 * the field, so no handler sees a missing, mistyped or out-of-range value. JSON {@code null} counts as absent,
 * as the OpenAI API treats it.
 */
final class Fields {
    private final ObjectNode body;

    Fields(ObjectNode body) {
        this.body = body;
    }

    private JsonNode get(String name) {
        JsonNode n = body.get(name);
        return n == null || n.isNull() ? null : n;
    }

    boolean has(String name) {
        return get(name) != null;
    }

    JsonNode node(String name) {
        return get(name);
    }

    String requiredString(String name) {
        JsonNode n = get(name);
        if (n == null) {
            throw ApiError.invalid("you must provide '" + name + "'", name);
        }
        if (!n.isTextual()) {
            throw ApiError.invalid("'" + name + "' must be a string", name);
        }
        return n.textValue();
    }

    boolean bool(String name, boolean absent) {
        JsonNode n = get(name);
        if (n == null) {
            return absent;
        }
        if (!n.isBoolean()) {
            throw ApiError.invalid("'" + name + "' must be true or false", name);
        }
        return n.booleanValue();
    }

    int integer(String name, int absent, int min, int max) {
        JsonNode n = get(name);
        if (n == null) {
            return absent;
        }
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < min || n.longValue() > max) {
            throw ApiError.invalid("'" + name + "' must be an integer in [" + min + ", " + max + "] but is " + n, name);
        }
        return n.intValue();
    }

    /** A 64-bit integer, e.g. a seed; absent gives {@code absent}. */
    long longInteger(String name, long absent) {
        JsonNode n = get(name);
        if (n == null) {
            return absent;
        }
        if (!n.isIntegralNumber() || !n.canConvertToLong()) {
            throw ApiError.invalid("'" + name + "' must be a 64-bit integer but is " + n, name);
        }
        return n.longValue();
    }

    float number(String name, float absent, float min, float max) {
        JsonNode n = get(name);
        if (n == null) {
            return absent;
        }
        if (!n.isNumber() || !(n.doubleValue() >= min && n.doubleValue() <= max)) {
            throw ApiError.invalid("'" + name + "' must be a number in [" + min + ", " + max + "] but is " + n, name);
        }
        return (float) n.doubleValue();
    }

    /** A string or an array of at most {@code maxItems} strings (OpenAI's {@code stop}); absent gives an empty list. */
    List<String> strings(String name, int maxItems) {
        JsonNode n = get(name);
        List<String> out = new ArrayList<>();
        if (n == null) {
            return out;
        }
        if (n.isTextual()) {
            out.add(n.textValue());
        } else if (n.isArray()) {
            for (JsonNode e : n) {
                if (!e.isTextual()) {
                    throw ApiError.invalid("'" + name + "' must be a string or an array of strings", name);
                }
                out.add(e.textValue());
            }
        } else {
            throw ApiError.invalid("'" + name + "' must be a string or an array of strings", name);
        }
        if (out.size() > maxItems) {
            throw ApiError.invalid("'" + name + "' may hold at most " + maxItems + " items but holds " + out.size(), name);
        }
        for (String s : out) {
            if (s.isEmpty()) {
                throw ApiError.invalid("'" + name + "' holds an empty string", name);
            }
        }
        return out;
    }
}
