package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rlx.ir.DType;
import dev.rlx.ir.HalfFloats;
import dev.rlx.ir.Node;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Value;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs compute ops on F16/BF16 tensors through their f32 kernels: the CPU has no half-precision arithmetic,
 * so half is a storage format here. Half operands are widened into f32 buffers, the f32 kernel runs, and
 * half results are rounded back (nearest even). The buffers are one region shared by every adapted node
 * (kernels run one at a time), so the cost in memory is the largest node's f32 footprint, not the sum.
 */
public final class HalfAdapter {
    private HalfAdapter() {}

    /** Ops that get f32 kernels for half tensors; movement, casts and selection handle any dtype directly. */
    private static final Set<OpKind> ADAPTED = EnumSet.of(OpKind.UNARY, OpKind.BINARY, OpKind.FUSED, OpKind.FUSED_MATMUL,
            OpKind.MATMUL, OpKind.REDUCE, OpKind.ARG_REDUCE, OpKind.CUMSUM, OpKind.TOP_K, OpKind.SOFTMAX,
            OpKind.LOG_SOFTMAX, OpKind.LAYER_NORM, OpKind.RMS_NORM, OpKind.GROUP_NORM, OpKind.ADD_NORM,
            OpKind.ATTENTION, OpKind.ROPE, OpKind.CONV, OpKind.CONV_TRANSPOSE, OpKind.POOL);

    private static boolean half(Value v) {
        return v.dtype() == DType.F16 || v.dtype() == DType.BF16;
    }

    /** The distinct half values {@code n} reads or writes, if it is an adapted op; else empty. */
    private static List<Value> halfValues(Node n) {
        List<Value> out = new ArrayList<>();
        if (!ADAPTED.contains(n.kind())) {
            return out;
        }
        for (Value v : n.inputs()) {
            if (half(v) && !out.contains(v)) {
                out.add(v);
            }
        }
        for (Value v : n.outputs()) {
            if (half(v)) {
                out.add(v);
            }
        }
        return out;
    }

    /** Bytes of f32 buffers {@code n} needs (0 when it needs no adapter), each rounded up to 64 bytes. */
    public static long bytesNeeded(Node n) {
        long total = 0;
        for (Value v : halfValues(n)) {
            total += (v.shape().elementCount() * 4 + 63) & ~63L;
        }
        return total;
    }

    /**
     * The kernel for {@code n} running on f32 copies of its half tensors, laid out in {@code shared} (at least
     * {@link #bytesNeeded} bytes), or null when {@code n} needs no adapter.
     */
    public static Kernel wrap(Node n, LowerContext ctx, MemorySegment shared, KernelFactory factory) {
        List<Value> halves = halfValues(n);
        if (halves.isEmpty()) {
            return null;
        }
        Map<Value, Buf> wide = new IdentityHashMap<>();
        long at = 0;
        for (Value v : halves) {
            long bytes = v.shape().elementCount() * 4;
            wide.put(v, new Buf(shared.asSlice(at, bytes), v.shape().withDtype(DType.F32)));
            at += (bytes + 63) & ~63L;
        }
        LowerContext inner = ctx.replacing(wide);
        Kernel k = factory.lower(n, inner);
        List<Convert> before = new ArrayList<>();
        List<Convert> after = new ArrayList<>();
        for (Value v : halves) {
            boolean output = n.outputs().contains(v);
            Convert c = new Convert(ctx.buf(v).seg(), wide.get(v).seg(), v.dtype() == DType.BF16, v.shape().elementCount());
            (output ? after : before).add(c);
        }
        Convert[] in = before.toArray(Convert[]::new);
        Convert[] out = after.toArray(Convert[]::new);
        return () -> {
            for (Convert c : in) {
                c.widen();
            }
            k.run();
            for (Convert c : out) {
                c.narrow();
            }
        };
    }

    /** Builds the f32 kernel of a node against a context. */
    @FunctionalInterface
    public interface KernelFactory {
        Kernel lower(Node n, LowerContext ctx);
    }

    /** Conversion between a half tensor and its f32 buffer. */
    private record Convert(MemorySegment half, MemorySegment wide, boolean bf16, long n) {
        void widen() {
            if (bf16) {
                for (long i = 0; i < n; i++) {
                    wide.setAtIndex(JAVA_FLOAT, i, HalfFloats.bf16ToFloat(half.getAtIndex(JAVA_SHORT, i)));
                }
            } else {
                for (long i = 0; i < n; i++) {
                    wide.setAtIndex(JAVA_FLOAT, i, Float.float16ToFloat(half.getAtIndex(JAVA_SHORT, i)));
                }
            }
        }

        void narrow() {
            if (bf16) {
                for (long i = 0; i < n; i++) {
                    half.setAtIndex(JAVA_SHORT, i, HalfFloats.toBF16(wide.getAtIndex(JAVA_FLOAT, i)));
                }
            } else {
                for (long i = 0; i < n; i++) {
                    half.setAtIndex(JAVA_SHORT, i, Float.floatToFloat16(wide.getAtIndex(JAVA_FLOAT, i)));
                }
            }
        }
    }
}
