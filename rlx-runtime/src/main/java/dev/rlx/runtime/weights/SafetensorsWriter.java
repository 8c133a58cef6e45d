package dev.rlx.runtime.weights;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.rlx.ir.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Writes tensors in the safetensors format (for tests, demos and exporting weights). */
public final class SafetensorsWriter {
    private SafetensorsWriter() {}

    /**
     * Writes {@code tensors} in map order.
     *
     * @throws IllegalArgumentException before creating the file when a tensor's dtype has no safetensors name
     *                                  (C64)
     */
    public static void write(Path path, Map<String, Tensor> tensors) throws IOException {
        for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
            if (e.getValue().dtype().isComplex()) {
                throw new IllegalArgumentException("tensor '" + e.getKey() + "' is " + e.getValue().shape()
                        + ": safetensors has no " + e.getValue().dtype().label() + " dtype");
            }
        }
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(json)) {
            g.writeStartObject();
            long offset = 0;
            for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
                Tensor t = e.getValue();
                g.writeObjectFieldStart(e.getKey());
                g.writeStringField("dtype", SafetensorsLoader.dtypeName(t.dtype()));
                g.writeArrayFieldStart("shape");
                for (int d : t.shape().dims()) {
                    g.writeNumber(d);
                }
                g.writeEndArray();
                g.writeArrayFieldStart("data_offsets");
                g.writeNumber(offset);
                g.writeNumber(offset + t.byteLength());
                g.writeEndArray();
                g.writeEndObject();
                offset += t.byteLength();
            }
            g.writeEndObject();
        }
        // Pad the header with spaces to 8 bytes so the data section is aligned, as the reference writer does.
        byte[] header = json.toByteArray();
        int padded = (header.length + 7) & ~7;
        try (OutputStream out = Files.newOutputStream(path)) {
            out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded).array());
            out.write(header);
            for (int i = header.length; i < padded; i++) {
                out.write(' ');
            }
            for (Tensor t : tensors.values()) {
                out.write(t.bytes());
            }
        }
    }
}
