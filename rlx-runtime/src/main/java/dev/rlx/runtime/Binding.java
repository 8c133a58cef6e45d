package dev.rlx.runtime;

import dev.rlx.ir.DType;
import dev.rlx.ir.Elements;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.spi.WriteCount;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * The writable slot of one input of a compiled graph or one weight of a {@link WeightSet}. Every setter
 * validates (element count, dtype, integer range) before it writes, so a rejected call changes nothing. When
 * the slot is host memory the data is written in place; otherwise it is converted into a host staging copy
 * and uploaded.
 */
final class Binding {
    final String kind; // "input" or "param"
    final String name;
    final Shape shape;
    private final MemorySegment bytes; // the slot itself, or the staging copy
    private final Consumer<MemorySegment> upload; // null when bytes is the slot
    private final String readOnly; // why writes are refused, or null
    volatile boolean isSet;
    /** Writes so far; a backend's copy of the bytes in another layout is refreshed when this moves. */
    final WriteCount writes = new WriteCount();

    /**
     * A slot of {@code shape}: {@code host} its host bytes, or null when the memory is a device's, in which
     * case every write is staged and handed to {@code upload}.
     */
    Binding(String kind, String name, Shape shape, MemorySegment host, Consumer<MemorySegment> upload) {
        this.kind = kind;
        this.name = name;
        this.shape = shape;
        this.upload = host == null ? upload : null;
        this.bytes = host != null ? host
                : Arena.ofAuto().allocate(Math.max(1, shape.byteSize()), 64).asSlice(0, shape.byteSize());
        this.readOnly = null;
    }

    /** A slot that is set and refuses every write, saying {@code why}: memory someone else owns and fills. */
    Binding(String kind, String name, Shape shape, String why) {
        this.kind = kind;
        this.name = name;
        this.shape = shape;
        this.upload = null;
        this.bytes = MemorySegment.NULL;
        this.readOnly = why;
        this.isSet = true;
    }

    private String describe() {
        return kind + " '" + name + "' " + shape + " (" + shape.elementCount() + " elements)";
    }

    private void checkWritable() {
        if (readOnly != null) {
            throw new BindingException(describe() + " cannot be written: " + readOnly);
        }
    }

    /** A null array, segment or tensor is refused like any other wrong data, naming the slot. */
    void checkNotNull(Object src, String type) {
        if (src == null) {
            throw new BindingException(describe() + " was given null instead of " + type + " data");
        }
    }

    private void checkCount(long given, String type) {
        if (given != shape.elementCount()) {
            throw new BindingException(describe() + " was given " + given + " " + type + " values");
        }
    }

    private void checkType(String problem, String type) {
        checkWritable();
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
        if (upload != null) {
            upload.accept(bytes);
        }
        isSet = true;
        writes.bump();
    }

    /** Throws what {@link #set(float[])} would throw for {@code src}, writing nothing. */
    void check(float[] src) {
        checkNotNull(src, "float");
        checkType(HostData.floatTarget(shape.dtype()), "float");
        checkCount(src.length, "float");
    }

    void set(float[] src) {
        check(src);
        HostData.write(src, bytes, shape.dtype());
        commit();
    }

    void set(double[] src) {
        checkNotNull(src, "double");
        checkType(HostData.floatTarget(shape.dtype()), "double");
        checkCount(src.length, "double");
        HostData.write(src, bytes, shape.dtype());
        commit();
    }

    void set(int[] src) {
        checkNotNull(src, "int");
        checkType(HostData.intTarget(shape.dtype()), "int");
        checkCount(src.length, "int");
        int bad = HostData.firstOutOfRange(src, shape.dtype());
        checkRange(bad, bad >= 0 ? src[bad] : 0);
        HostData.write(src, bytes, shape.dtype());
        commit();
    }

    void set(long[] src) {
        checkNotNull(src, "long");
        checkType(HostData.intTarget(shape.dtype()), "long");
        checkCount(src.length, "long");
        int bad = HostData.firstOutOfRange(src, shape.dtype());
        checkRange(bad, bad >= 0 ? src[bad] : 0);
        HostData.write(src, bytes, shape.dtype());
        commit();
    }

    void set(boolean[] src) {
        checkNotNull(src, "boolean");
        checkType(shape.dtype() == DType.BOOL ? null : "it holds " + shape.dtype().label(), "boolean");
        checkCount(src.length, "boolean");
        HostData.write(src, bytes);
        commit();
    }

    /** Raw little-endian bytes already in this slot's dtype. */
    void setBytes(MemorySegment src) {
        checkNotNull(src, "byte");
        checkWritable();
        if (src.byteSize() != shape.byteSize()) {
            throw new BindingException(describe() + " needs " + shape.byteSize() + " bytes of " + shape.dtype().label()
                    + " but the segment has " + src.byteSize());
        }
        MemorySegment.copy(src, 0, bytes, 0, shape.byteSize());
        commit();
    }

    /** Bytes of another dtype with the same element count, converted (floats to floats, integers to integers). */
    void setConverted(MemorySegment src, DType srcType) {
        checkNotNull(src, "tensor");
        checkWritable();
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
                Elements.setDouble(bytes, i, t, Elements.getDouble(src, i, srcType));
            }
        } else if (t.isInteger() && srcType.isInteger()) {
            for (long i = 0; i < n; i++) {
                long v = Elements.getLong(src, i, srcType);
                if (v < Elements.min(t) || v > Elements.max(t)) {
                    throw new BindingException(describe() + ": value " + v + " at index " + i + " does not fit " + t.label());
                }
            }
            for (long i = 0; i < n; i++) {
                Elements.setLong(bytes, i, t, Elements.getLong(src, i, srcType));
            }
        } else {
            throw new BindingException(describe() + " cannot take " + srcType.label() + " data");
        }
        commit();
    }

    /** The current bytes, uploaded or not (host: the slot itself; device: the last staged copy). */
    MemorySegment bytes() {
        return bytes;
    }
}
