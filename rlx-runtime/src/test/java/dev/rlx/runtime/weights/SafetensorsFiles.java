package dev.rlx.runtime.weights;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Builds safetensors files byte by byte, so tests can make well-formed and hostile ones. */
final class SafetensorsFiles {
    private SafetensorsFiles() {}

    /** The 8-byte little-endian header length, the header as UTF-8 (unpadded), then {@code data}. */
    static byte[] file(String header, byte[] data) {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(h.length).put(h).put(data).array();
    }

    static byte[] file(String header, int dataBytes) {
        return file(header, new byte[dataBytes]);
    }

    /** A length field of {@code headerLength} followed by {@code rest}. */
    static byte[] withLength(long headerLength, byte[] rest) {
        return ByteBuffer.allocate(8 + rest.length).order(ByteOrder.LITTLE_ENDIAN).putLong(headerLength).put(rest).array();
    }

    static Path write(Path dir, String name, byte[] bytes) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return p;
    }
}
