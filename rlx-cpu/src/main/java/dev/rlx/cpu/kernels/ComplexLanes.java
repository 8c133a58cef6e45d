package dev.rlx.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Lane index tables for {@code FloatVector.selectFrom(v1, v2)} that move interleaved f32 complex values
 * {@code (re, im, re, im, ..)} held in two vectors (W values) into split re and im vectors and back, optionally
 * reversing their order (for the mirrored bins of real transforms). One two-vector permute each.
 */
final class ComplexLanes {
    private ComplexLanes() {}

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();

    /** re (even lanes) and im (odd lanes) of two vectors of pairs. */
    static final FloatVector RE = table(l -> 2 * l);
    static final FloatVector IM = table(l -> 2 * l + 1);
    /** As RE and IM with the values in reverse order: lane l holds value W-1-l. */
    static final FloatVector RE_REVERSED = table(l -> 2 * (W - 1 - l));
    static final FloatVector IM_REVERSED = table(l -> 2 * (W - 1 - l) + 1);
    /** From (re, im): pairs 0..W/2-1 (first vector) and W/2..W-1 (second). */
    static final FloatVector ZIP_LO = table(l -> (l % 2 == 0 ? 0 : W) + l / 2);
    static final FloatVector ZIP_HI = table(l -> (l % 2 == 0 ? 0 : W) + W / 2 + l / 2);
    /** As ZIP_LO and ZIP_HI from (re, im) holding the values in reverse order. */
    static final FloatVector ZIP_REVERSED_LO = table(l -> (l % 2 == 0 ? 0 : W) + W - 1 - l / 2);
    static final FloatVector ZIP_REVERSED_HI = table(l -> (l % 2 == 0 ? 0 : W) + W / 2 - 1 - l / 2);

    private static FloatVector table(java.util.function.IntUnaryOperator lane) {
        float[] idx = new float[W];
        for (int l = 0; l < W; l++) {
            idx[l] = lane.applyAsInt(l);
        }
        return FloatVector.fromArray(F, idx, 0);
    }
}
