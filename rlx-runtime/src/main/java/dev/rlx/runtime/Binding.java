package dev.rlx.runtime;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.spi.Executable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The writable slot of one input or param of a compiled graph. Every setter validates (element count, dtype,
 * integer range) before it writes, so a rejected call changes nothing.
 */
final class Binding {
    final String kind; // "input" or "param"
    final String name;
    final Shape shape;
    private final Value value;
    private final Executable exe;
    private final MemorySegment bytes;
    private final boolean staged;
    boolean isSet;

    Binding(String kind, String name, Value value, Executable exe) {
        this.kind = kind;
        this.name = name;
        this.shape = value.shape();
        this.value = value;
        this.exe = exe;
        MemorySegment host = exe.hostSlot(value);
        this.staged = host == null;
        this.bytes = staged ? Arena.ofAuto().allocate(Math.max(1, shape.byteSize()), 64).asSlice(0, shape.byteSize()) : host;
    }

    private String describe() {
        return kind + " '" + name + "' " + shape + " (" + shape.elementCount() + " elements)";
    }

    private void checkCount(long given, String type) {
        if (given != shape.elementCount()) {
            throw new BindingException(describe() + " was given " + given + " " + type + " values");
        }
    }

    private void checkType(String problem, String type) {
        if (problem != null) {
            throw new BindingException(describe() + " cannot take " + type + " data: " + problem);
        }
    }

    /** Throws when {@code bad >= 0}: the index of the first value (given) the slot's integer type cannot hold. */
    private void checkRange(int bad, long value) {
        if (bad >= 0) {
            throw new BindingException(describe() + ": value " + value + " at index " + bad
                    + " does not fit " + shape.dtype().label());
        }
    }

    private void commit() {
        if (staged) {
            exe.write(value, bytes);
        }
        isSet = true;
    }

    /** Throws what {@link #set(float[])} would throw for {@code src}, writing nothing. */
    void check(float[] src) {
        checkType(HostData.floatTarget(shape.dtype()), "float");
        checkCount(src.length, "float");
    }

    void set(float[] src) {
        check(src);
        HostData.write(src, bytes, shape.dtype());
        commit();
    }

    void set(double[] src) {
        checkType(HostData.floatTarget(shape.dtype()), "double");
        checkCount(src.length, "double");
        HostData.write(src, bytes, shape.dtype());
        commit();
    }

    void set(int[] src) {
        checkType(HostData.intTarget(shape.dtype()), "int");
        checkCount(src.length, "int");
        int bad = HostData.firstOutOfRange(src, shape.dtype());
        checkRange(bad, bad >= 0 ? src[bad] : 0);
        HostData.write(src, bytes, shape.dtype());
        commit();
    }

    void set(long[] src) {
        checkType(HostData.intTarget(shape.dtype()), "long");
        checkCount(src.length, "long");
        int bad = HostData.firstOutOfRange(src, shape.dtype());
        checkRange(bad, bad >= 0 ? src[bad] : 0);
        HostData.write(src, bytes, shape.dtype());
        commit();
    }

    void set(boolean[] src) {
        checkType(shape.dtype() == DType.BOOL ? null : "it holds " + shape.dtype().label(), "boolean");
        checkCount(src.length, "boolean");
        HostData.write(src, bytes);
        commit();
    }

    /** Raw little-endian bytes already in this slot's dtype. */
    void setBytes(MemorySegment src) {
        if (src.byteSize() != shape.byteSize()) {
            throw new BindingException(describe() + " needs " + shape.byteSize() + " bytes of " + shape.dtype().label()
                    + " but the segment has " + src.byteSize());
        }
        MemorySegment.copy(src, 0, bytes, 0, shape.byteSize());
        commit();
    }

    /** Bytes of another dtype with the same element count, converted (floats to floats, integers to integers). */
    void setConverted(MemorySegment src, DType srcType) {
        if (srcType == shape.dtype()) {
            setBytes(src);
            return;
        }
        long n = shape.elementCount();
        if (src.byteSize() != n * srcType.byteSize()) {
            throw new BindingException(describe() + " was given " + src.byteSize() / srcType.byteSize() + " "
                    + srcType.label() + " values");
        }
        DType t = shape.dtype();
        if (t.isFloat() && srcType.isFloat()) {
            for (long i = 0; i < n; i++) {
                double v = HostData.getDouble(src, i, srcType);
                switch (t) {
                    case F32 -> bytes.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) v);
                    case F64 -> bytes.setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED, i, v);
                    case F16 -> bytes.setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i,
                            dev.rlx.ir.HalfFloats.toF16((float) v));
                    default -> bytes.setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i,
                            dev.rlx.ir.HalfFloats.toBF16((float) v));
                }
            }
        } else if (t.isInteger() && srcType.isInteger()) {
            for (long i = 0; i < n; i++) {
                long v = HostData.getLong(src, i, srcType);
                if (v < HostData.min(t) || v > HostData.max(t)) {
                    throw new BindingException(describe() + ": value " + v + " at index " + i + " does not fit " + t.label());
                }
            }
            long[] tmp = new long[Math.toIntExact(n)];
            for (int i = 0; i < tmp.length; i++) {
                tmp[i] = HostData.getLong(src, i, srcType);
            }
            HostData.write(tmp, bytes, t);
        } else {
            throw new BindingException(describe() + " cannot take " + srcType.label() + " data");
        }
        commit();
    }
}
