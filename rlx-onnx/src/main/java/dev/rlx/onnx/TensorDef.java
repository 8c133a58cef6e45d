package dev.rlx.onnx;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code TensorProto} as read: name, ONNX element type, dims, and the data in whichever field held it
 * (raw bytes, one typed repeated field, or external data). Nothing is checked here beyond the wire format;
 * {@link TensorDecoder} checks the data against the dims when it turns this into a tensor.
 *
 * @param where the element path and byte offset where the tensor was read, for error messages
 */
record TensorDef(String name, int dataType, long[] dims, byte[] raw, int typedField, long[] typed, int strings,
                 Map<String, String> external, int location, String where) {

    /** {@code TensorProto.DataLocation.EXTERNAL}. */
    static final int EXTERNAL = 1;

    boolean isExternal() {
        return location == EXTERNAL || !external.isEmpty();
    }

    /** Collects fields while parsing. */
    static final class Builder {
        String name = "";
        int dataType;
        long[] dims = new long[0];
        byte[] raw;
        int strings;
        Map<String, String> external = new LinkedHashMap<>();
        int location;
        String where = "";
        private int typedField;
        private ProtoReader.LongList typed;

        /** The list for typed field {@code field}; a tensor may fill only one. */
        ProtoReader.LongList typed(int field, ProtoReader r) {
            if (typed != null && typedField != field) {
                throw r.error("data in two typed fields (" + typedField + " and " + field + ")");
            }
            if (typed == null) {
                typed = new ProtoReader.LongList();
                typedField = field;
            }
            return typed;
        }

        TensorDef build() {
            return new TensorDef(name, dataType, dims, raw, typedField, typed == null ? null : typed.toArray(), strings,
                    Map.copyOf(external), location, where);
        }
    }
}
