package dev.rlx.ir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Test-only writer of the serialized graph format, written from the grammar in {@link GraphSerializer}'s
 * Javadoc (big-endian integers, u32-length-prefixed UTF-8 strings), to craft exact and hostile bytes.
 */
final class ByteWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** {@code "RLXG" u16:version}. */
    ByteWriter header() {
        raw('R', 'L', 'X', 'G');
        return u16(GraphSerializer.VERSION);
    }

    ByteWriter raw(int... bytes) {
        for (int b : bytes) {
            out.write(b);
        }
        return this;
    }

    ByteWriter u8(int v) {
        out.write(v);
        return this;
    }

    ByteWriter u16(int v) {
        return raw(v >>> 8, v);
    }

    ByteWriter i32(int v) {
        return raw(v >>> 24, v >>> 16, v >>> 8, v);
    }

    ByteWriter i64(long v) {
        return i32((int) (v >>> 32)).i32((int) v);
    }

    ByteWriter f32(float v) {
        return i32(Float.floatToIntBits(v));
    }

    ByteWriter f64(double v) {
        return i64(Double.doubleToLongBits(v));
    }

    ByteWriter str(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        i32(b.length);
        out.writeBytes(b);
        return this;
    }

    /** {@code str:dtypeName u32:rank u32:dim*}. */
    ByteWriter shape(String dtype, int... dims) {
        str(dtype).i32(dims.length);
        for (int d : dims) {
            i32(d);
        }
        return this;
    }

    /** {@code u32:nodeId u32:outputIndex}. */
    ByteWriter ref(int node, int output) {
        return i32(node).i32(output);
    }

    /** An Input node: {@code str:"Input" str:name shape u32:0 u8:0}. */
    ByteWriter inputNode(String name, String dtype, int... dims) {
        return str("Input").str(name).shape(dtype, dims).i32(0).u8(0);
    }

    byte[] bytes() {
        return out.toByteArray();
    }
}
