package dev.rlx.onnx.conformance;

/**
 * The outcome of one conformance case.
 *
 * @param suite e.g. {@code node}
 * @param name the case folder, e.g. {@code test_abs}
 * @param status what happened
 * @param detail why: the unsupported feature, the error, the worst mismatch, or the out-of-scope reason
 * @param maxError the largest {@code |actual - expected|} over all outputs (NaN when not compared)
 * @param millis wall time of import, compile and run
 */
public record CaseResult(String suite, String name, Status status, String detail, double maxError, long millis) {

    /** How a case ended. */
    public enum Status {
        /** Every output within tolerance. */
        PASS,
        /** Ran, but an output differs (value, shape or dtype). */
        FAIL,
        /** Uses an op, mode or dtype RLX does not support. */
        UNSUPPORTED,
        /** Import, compile or run failed, or the case ran past its time limit. */
        ERROR,
        /** Strings, sequences/maps/optionals, or training ops: not counted against conformance. */
        OUT_OF_SCOPE
    }

    public boolean inScope() {
        return status != Status.OUT_OF_SCOPE;
    }
}
