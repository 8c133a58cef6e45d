package dev.rlx.llm.gguf;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One tensor of a GGUF file: its name, type, dimensions in ggml order ({@code dims[0]} is the innermost, the
 * length of a row) and its bytes, a read-only slice of the file's mapping (nothing is copied).
 *
 * @param offset where the data starts, relative to the file's data section
 */
public record GgufTensor(String name, GgmlType type, long[] dims, long offset, MemorySegment data) {
    public GgufTensor {
        dims = dims.clone();
    }

    @Override
    public long[] dims() {
        return dims.clone();
    }

    /** {@code dims[i]}, or 1 past the rank (ggml's {@code ne} padded to four). */
    public long dim(int i) {
        return i < dims.length ? dims[i] : 1;
    }

    public int rank() {
        return dims.length;
    }

    /** Values in the tensor. */
    public long elementCount() {
        long n = 1;
        for (long d : dims) {
            n *= d; // checked not to overflow when the file was read
        }
        return n;
    }

    /** All values decoded to f32. */
    public float[] toFloats() {
        long n = elementCount();
        if (n > Integer.MAX_VALUE - 8) {
            throw new GgufFormatException("tensor '" + name + "' has " + n + " values, too many for one float[];"
                    + " decode it by rows", -1);
        }
        float[] out = new float[(int) n];
        type.decode(data, 0, out, 0, (int) n);
        return out;
    }

    /** Decodes {@code rows} rows of {@code dims[0]} values from row {@code firstRow} into {@code dst[dstOff ..]}. */
    public void decodeRows(long firstRow, int rows, float[] dst, int dstOff) {
        long rowCount = elementCount() / Math.max(1, dim(0));
        if (firstRow < 0 || rows < 0 || firstRow > rowCount - rows) {
            throw new GgufFormatException("tensor '" + name + "': rows [" + firstRow + ", " + (firstRow + rows)
                    + ") are outside its " + rowCount + " rows", -1);
        }
        long rowBytes = type.bytesFor(dim(0));
        long n = (long) rows * dim(0);
        if (n > Integer.MAX_VALUE) {
            throw new GgufFormatException("tensor '" + name + "': " + n + " values do not fit one float[]", -1);
        }
        type.decode(data, firstRow * rowBytes, dst, dstOff, (int) n);
    }

    @Override
    public String toString() {
        return name + " " + type + " " + Arrays.toString(dims);
    }
}
