package dev.rlx.llm.model;

import dev.rlx.ir.RlxException;

/** Why a llama-family model cannot be loaded or a batch cannot be run, with the thing at fault named. */
public final class LlamaModelException extends RlxException {
    /** What went wrong. */
    public enum Reason {
        /** {@code general.architecture} or a hyperparameter (RoPE scaling type) the decoder does not implement. */
        UNSUPPORTED_ARCHITECTURE,
        /** A tensor stored in a ggml type the decoder cannot compute with. */
        UNSUPPORTED_TYPE,
        /** A tensor the architecture needs is not in the file. */
        MISSING_TENSOR,
        /** A tensor's dimensions disagree with the hyperparameters. */
        SHAPE_MISMATCH,
        /** An {@link LlamaModel.Options} value out of range. */
        BAD_OPTION,
        /** A batch the model cannot run: too many tokens or sequences, a token id or position out of range. */
        BAD_BATCH,
        /** The model was used after {@link LlamaModel#close()}. */
        CLOSED
    }

    private final Reason reason;

    public LlamaModelException(Reason reason, String message) {
        super("[LlamaModel] " + message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
