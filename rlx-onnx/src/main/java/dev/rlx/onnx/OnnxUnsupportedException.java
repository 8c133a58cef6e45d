package dev.rlx.onnx;

/**
 * The model uses something RLX does not import: an op (or an op's mode), an element type such as strings or
 * UINT16, or a sequence/map/optional value. {@link #feature()} names it, e.g. {@code NonZero} or
 * {@code dtype UINT64}, so reports can group by it.
 */
public final class OnnxUnsupportedException extends OnnxImportException {
    private final String feature;

    public OnnxUnsupportedException(String feature, String message) {
        super(message);
        this.feature = feature;
    }

    /** What is unsupported: an op type, {@code Op(mode=...)}, or {@code dtype NAME}. */
    public String feature() {
        return feature;
    }
}
