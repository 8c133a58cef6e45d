package dev.rlx.runtime;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.runtime.spi.Executable;
import java.lang.foreign.MemorySegment;

/**
 * A read-only view of one output of a {@link CompiledGraph}. It reflects the latest {@code run()}; the
 * {@code copyTo} forms copy (converting the element type where needed) and do not allocate.
 * The view is created once per output at compile time and stays valid until the graph is closed; after that
 * its {@code copyTo} and {@code to...} methods throw {@link IllegalStateException}.
 */
public final class TensorView {
    private final String what;
    private final Shape shape;
    private final Executable exe;
    private final Value value;
    private final MemorySegment bytes;
    private final boolean staged;
    private final int count;
    private final Runnable checkOpen; // throws IllegalStateException once the owning graph is closed

    TensorView(String what, Shape shape, Executable exe, Value value, Runnable checkOpen) {
        this.what = what;
        this.checkOpen = checkOpen;
        this.shape = shape;
        this.exe = exe;
        this.value = value;
        MemorySegment host = exe.hostSlot(value);
        this.staged = host == null;
        this.bytes = staged ? java.lang.foreign.Arena.ofAuto().allocate(Math.max(1, shape.byteSize()), 64)
                .asSlice(0, shape.byteSize()) : host;
        long n = shape.elementCount();
        this.count = n > Integer.MAX_VALUE ? -1 : (int) n;
    }

    public Shape shape() {
        return shape;
    }

    public DType dtype() {
        return shape.dtype();
    }

    /** Element count. */
    public long size() {
        return shape.elementCount();
    }

    private MemorySegment fresh() {
        checkOpen.run();
        if (staged) {
            exe.read(value, bytes);
        }
        return bytes;
    }

    private int checkArray(int length, String type, boolean ok) {
        checkOpen.run();
        if (!ok) {
            throw new BindingException(what + " is " + shape + "; it cannot be read into a " + type + " array");
        }
        if (count < 0) {
            throw new BindingException(what + " " + shape + " has more elements than a Java array holds; use copyTo(MemorySegment)");
        }
        if (length < count) {
            throw new BindingException(what + " " + shape + " has " + count + " elements but the " + type
                    + " array holds " + length);
        }
        return count;
    }

    /** Copies into {@code dst} (at least {@link #size()} long), converting any real dtype to float. */
    public void copyTo(float[] dst) {
        int n = checkArray(dst.length, "float", !dtype().isComplex());
        HostData.read(fresh(), dtype(), dst, n);
    }

    /** Copies into {@code dst}, converting any real dtype to double. */
    public void copyTo(double[] dst) {
        int n = checkArray(dst.length, "double", !dtype().isComplex());
        HostData.read(fresh(), dtype(), dst, n);
    }

    /** Copies an integer or BOOL output into {@code dst}. */
    public void copyTo(long[] dst) {
        int n = checkArray(dst.length, "long", dtype().isInteger() || dtype().isBool());
        HostData.read(fresh(), dtype(), dst, n);
    }

    /** Copies an integer (up to 32-bit signed) or BOOL output into {@code dst}. */
    public void copyTo(int[] dst) {
        boolean ok = dtype() == DType.I32 || dtype() == DType.I16 || dtype() == DType.I8 || dtype() == DType.U8
                || dtype().isBool();
        int n = checkArray(dst.length, "int", ok);
        HostData.read(fresh(), dtype(), dst, n);
    }

    /** Copies the raw little-endian bytes into {@code dst} (at least {@code shape().byteSize()} bytes). */
    public void copyTo(MemorySegment dst) {
        checkOpen.run();
        if (dst.byteSize() < shape.byteSize()) {
            throw new BindingException(what + " " + shape + " needs " + shape.byteSize() + " bytes but the segment has "
                    + dst.byteSize());
        }
        MemorySegment.copy(fresh(), 0, dst, 0, shape.byteSize());
    }

    /** A new float array with the values (allocates; the {@code copyTo} forms do not). */
    public float[] toFloatArray() {
        float[] out = new float[checkArray(Integer.MAX_VALUE, "float", !dtype().isComplex())];
        copyTo(out);
        return out;
    }

    /** An immutable snapshot (allocates). */
    public Tensor toTensor() {
        return Tensor.ofBytes(shape, fresh().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Override
    public String toString() {
        return what + " " + shape;
    }
}
