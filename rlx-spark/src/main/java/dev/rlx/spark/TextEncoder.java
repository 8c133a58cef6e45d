package dev.rlx.spark;

import dev.rlx.onnx.text.Encoding;
import java.util.List;

/** Runs a sentence encoder on one batch of tokenized texts; used by one task at a time. */
public interface TextEncoder extends AutoCloseable {
    /** One embedding per encoding, in order, the batch padded to {@code seq} tokens. */
    float[][] embed(List<Encoding> batch, int seq);

    @Override
    void close();
}
