package dev.rlx.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Function;

/**
 * Reads protobuf wire format with {@link CodedInputStream}, checking each field's wire type against the
 * schema and keeping the path of messages being read, so every error names the element and byte offset.
 * Nesting is capped (subgraphs inside subgraphs) so hostile files cannot exhaust the stack.
 */
final class ProtoReader {
    /** Deepest message nesting accepted; real models nest a few graphs at most. */
    static final int MAX_DEPTH = 100;

    private final CodedInputStream in;
    private final Deque<String> path = new ArrayDeque<>();
    private int tag;

    ProtoReader(byte[] bytes, String root) {
        this.in = CodedInputStream.newInstance(bytes);
        in.setSizeLimit(Integer.MAX_VALUE);
        in.setRecursionLimit(MAX_DEPTH);
        path.push(root);
    }

    /** Advances to the next field of the current message; false at its end. */
    boolean next() {
        try {
            tag = in.readTag();
        } catch (IOException e) {
            throw error("cannot read a field tag (" + e.getMessage() + ")", e);
        }
        return tag != 0;
    }

    int field() {
        return WireFormat.getTagFieldNumber(tag);
    }

    /** Skips the current field's value. */
    void skip() {
        try {
            if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_END_GROUP || !in.skipField(tag)) {
                throw error("unexpected end-group marker for field " + field());
            }
        } catch (IOException e) {
            throw error("cannot skip field " + field() + " (" + e.getMessage() + ")", e);
        }
    }

    long int64() {
        expect(WireFormat.WIRETYPE_VARINT, "an integer");
        return io(in::readInt64);
    }

    int int32() {
        expect(WireFormat.WIRETYPE_VARINT, "an integer");
        return io(in::readInt32);
    }

    float f32() {
        expect(WireFormat.WIRETYPE_FIXED32, "a float");
        return io(in::readFloat);
    }

    byte[] bytes() {
        expect(WireFormat.WIRETYPE_LENGTH_DELIMITED, "bytes");
        return io(in::readByteArray);
    }

    String string() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    /** Reads an embedded message with {@code parse}, naming it {@code label} in errors. */
    <T> T message(String label, Function<ProtoReader, T> parse) {
        expect(WireFormat.WIRETYPE_LENGTH_DELIMITED, "a message");
        if (path.size() >= MAX_DEPTH) {
            throw error("messages nest deeper than " + MAX_DEPTH);
        }
        int len = io(in::readRawVarint32);
        if (len < 0) {
            throw error("negative message length " + len);
        }
        int old;
        try {
            old = in.pushLimit(len);
        } catch (IOException e) {
            throw error("message " + label + " of " + len + " bytes runs past the end of the data", e);
        }
        path.push(label);
        T t = parse.apply(this);
        path.pop();
        if (!io(in::isAtEnd)) {
            throw error("message " + label + " ended before its declared length");
        }
        in.popLimit(old);
        return t;
    }

    /** Renames the innermost element (once its name field has been read). */
    void rename(String label) {
        path.pop();
        path.push(label);
    }

    /** A repeated int64/int32/uint64 field: packed or one value per tag; appended to {@code out}. */
    void longs(LongList out) {
        if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            packed(() -> out.add(io(in::readInt64)));
        } else {
            out.add(int64());
        }
    }

    /** A repeated float field (packed or not), appended as raw bits. */
    void floats(LongList out) {
        if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            packed(() -> out.add(Float.floatToRawIntBits(io(in::readFloat))));
        } else {
            out.add(Float.floatToRawIntBits(f32()));
        }
    }

    /** A repeated double field (packed or not), appended as raw bits. */
    void doubles(LongList out) {
        if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            packed(() -> out.add(Double.doubleToRawLongBits(io(in::readDouble))));
        } else {
            expect(WireFormat.WIRETYPE_FIXED64, "a double");
            out.add(Double.doubleToRawLongBits(io(in::readDouble)));
        }
    }

    private void packed(Runnable one) {
        int len = io(in::readRawVarint32);
        int old;
        try {
            if (len < 0) {
                throw error("negative packed length " + len);
            }
            old = in.pushLimit(len);
        } catch (IOException e) {
            throw error("packed field " + field() + " of " + len + " bytes runs past the end of the data", e);
        }
        while (!io(in::isAtEnd)) {
            one.run();
        }
        in.popLimit(old);
    }

    private void expect(int wireType, String what) {
        int actual = WireFormat.getTagWireType(tag);
        if (actual != wireType) {
            throw error("field " + field() + " should hold " + what + " (wire type " + wireType + ") but has wire type "
                    + actual);
        }
    }

    /** Where reading is: the element path and byte offset. */
    String where() {
        StringBuilder sb = new StringBuilder();
        var it = path.descendingIterator();
        while (it.hasNext()) {
            sb.append(it.next());
            if (it.hasNext()) {
                sb.append(" > ");
            }
        }
        return sb.append(" (byte ").append(in.getTotalBytesRead()).append(')').toString();
    }

    OnnxFormatException error(String message) {
        return new OnnxFormatException(where(), message);
    }

    OnnxFormatException error(String message, Throwable cause) {
        return new OnnxFormatException(where(), message, cause);
    }

    private interface IoSupplier<T> {
        T get() throws IOException;
    }

    private <T> T io(IoSupplier<T> s) {
        try {
            return s.get();
        } catch (IOException e) {
            throw error("truncated or corrupt data (" + e.getMessage() + ")", e);
        }
    }

    /** A growable list of primitive longs (raw bits for floats), bounded by the input's size. */
    static final class LongList {
        private long[] data = new long[8];
        private int size;

        void add(long v) {
            if (size == data.length) {
                if (size >= Integer.MAX_VALUE - 8) {
                    throw new OnnxFormatException("repeated field", "more than 2^31 values");
                }
                data = java.util.Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 8, 2L * size));
            }
            data[size++] = v;
        }

        int size() {
            return size;
        }

        long get(int i) {
            return data[i];
        }

        long[] toArray() {
            return java.util.Arrays.copyOf(data, size);
        }
    }
}
