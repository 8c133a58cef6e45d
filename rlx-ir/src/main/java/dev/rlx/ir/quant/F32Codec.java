package dev.rlx.ir.quant;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Plain little-endian f32, the exact reference storage: a "block" is one value in 4 bytes. */
final class F32Codec implements BlockCodec {
    private static final ValueLayout.OfFloat LE = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Override
    public int blockElems() {
        return 1;
    }

    @Override
    public int blockBytes() {
        return 4;
    }

    @Override
    public void encode(float[] src, int srcOff, MemorySegment dst, long dstOff, int n) {
        MemorySegment.copy(src, srcOff, dst, LE, dstOff, n);
    }

    @Override
    public void decode(MemorySegment src, long srcOff, float[] dst, int dstOff, int n) {
        MemorySegment.copy(src, LE, srcOff, dst, dstOff, n);
    }
}
