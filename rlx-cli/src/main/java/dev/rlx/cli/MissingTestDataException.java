package dev.rlx.cli;

import dev.rlx.ir.RlxException;

/** The ONNX test data {@code rlx onnx-conformance} was asked to run is not there: no folder, no suite, or no matching case. */
final class MissingTestDataException extends RlxException {
    private static final long serialVersionUID = 1L;

    MissingTestDataException(String message) {
        super(message);
    }
}
