package dev.rlx.ir.quant;

import dev.rlx.ir.HalfFloats;
import java.lang.foreign.MemorySegment;

/**
 * IEEE binary16, little-endian, rounded to nearest even: ggml's {@code GGML_TYPE_F16} (its
 * {@code GGML_FP32_TO_FP16} is the same round-to-nearest-even conversion, so finite values give the same bits).
 */
final class F16Codec implements BlockCodec {
    @Override
    public int blockElems() {
        return 1;
    }

    @Override
    public int blockBytes() {
        return 2;
    }

    @Override
    public void encode(float[] src, int srcOff, MemorySegment dst, long dstOff, int n) {
        for (int i = 0; i < n; i++) {
            dst.set(QuantCodec.LE_SHORT, dstOff + 2L * i, HalfFloats.toF16(src[srcOff + i]));
        }
    }

    @Override
    public void decode(MemorySegment src, long srcOff, float[] dst, int dstOff, int n) {
        for (int i = 0; i < n; i++) {
            dst[dstOff + i] = HalfFloats.f16ToFloat(src.get(QuantCodec.LE_SHORT, srcOff + 2L * i));
        }
    }
}
