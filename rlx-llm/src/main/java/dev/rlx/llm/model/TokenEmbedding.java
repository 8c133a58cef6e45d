package dev.rlx.llm.model;

import dev.rlx.llm.gguf.GgufTensor;

/**
 * The token embedding table, read on the host: a batch's rows are decoded straight from the file's mapping
 * (dequantised when the table is quantised) into the first graph's input, so the table is never widened as a
 * whole and no graph holds it.
 */
final class TokenEmbedding {
    private final GgufTensor table;
    private final int dim;

    TokenEmbedding(GgufTensor table) {
        this.table = table;
        this.dim = (int) table.dim(0);
    }

    /** Writes token {@code id}'s row ({@code dim} values) to {@code dst[off ..]}; the id is checked by the caller. */
    void row(int id, float[] dst, int off) {
        table.decodeRows(id, 1, dst, off);
    }

    int dim() {
        return dim;
    }
}
