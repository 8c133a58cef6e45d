package dev.rlx.ir;

/**
 * How attention and rotary-embedding operands lay out batch, sequence, heads and head dimension. Explicit,
 * so a graph never depends on guessing from sizes (the Rust original guessed when {@code S == H}).
 */
public enum HeadLayout {
    /** {@code [B, S, H*D]} (rank 3) or {@code [B, S, H, D]} (rank 4): the projection output layout. */
    BSHD,
    /** {@code [B, H, S, D]} (rank 4): heads first, as after a transpose. */
    BHSD
}
