package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.limits.Limits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Turns a {@link TensorDef} into a {@link Tensor}, checking the data against the dims before allocating:
 * dims must be non-negative and their product must fit, the raw or typed data must hold exactly that many
 * elements, and external data must lie inside the model's folder and inside its file.
 */
final class TensorDecoder {
    private TensorDecoder() {}

    /** The largest tensor RLX holds on the heap (a Java array's limit). */
    static final long MAX_BYTES = Integer.MAX_VALUE - 8;

    /**
     * @param modelDir the folder external data is resolved against, or null to refuse external data
     */
    static Tensor decode(TensorDef t, Path modelDir, Limits limits) {
        String what = "tensor '" + t.name() + "'";
        if (t.dataType() == OnnxTypes.STRING || t.strings() > 0) {
            throw new OnnxUnsupportedException("dtype STRING", what + " holds strings, which RLX does not support");
        }
        DType dt = OnnxTypes.dtype(t.dataType(), what);
        Shape shape = shape(t, dt);
        long bytes = shape.byteSize();
        long n = shape.elementCount();
        limits.check(Limits.Kind.TENSOR_BYTES, what + " " + shape, bytes);
        if (t.isExternal()) {
            return Tensor.ofBytes(shape, external(t, modelDir, bytes));
        }
        if (t.raw() != null) {
            if (t.raw().length != bytes) {
                throw error(t, shape + " needs " + bytes + " bytes of raw_data but has " + t.raw().length);
            }
            return Tensor.ofBytes(shape, t.raw());
        }
        long[] v = t.typed() == null ? new long[0] : t.typed();
        int expectedField = switch (dt) {
            case F32, C64 -> 4;
            case F64 -> 10;
            case I64 -> 7;
            case U32 -> 11;
            default -> 5;
        };
        long perElement = dt == DType.C64 ? 2 : 1;
        if (v.length == 0 && n == 0) {
            return Tensor.ofBytes(shape, new byte[0]);
        }
        if (t.typedField() != expectedField && v.length > 0) {
            throw error(t, OnnxTypes.name(t.dataType()) + " data must be in field " + expectedField + " but is in field "
                    + t.typedField());
        }
        if (v.length != n * perElement) {
            throw error(t, shape + " needs " + n * perElement + " values but has " + v.length);
        }
        ByteBuffer b = ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (long x : v) {
            switch (dt) {
                case F32, C64, I32, U32 -> b.putInt((int) x);
                case F64, I64 -> b.putLong(x);
                case F16, BF16, I16 -> b.putShort((short) x);
                case I8, U8 -> b.put((byte) x);
                case BOOL -> b.put((byte) (x != 0 ? 1 : 0));
            }
        }
        return Tensor.ofBytes(shape, b.array());
    }

    /** The shape of {@code t}'s dims, rejecting negative, oversized or too many dims. */
    static Shape shape(TensorDef t, DType dt) {
        long[] d = t.dims();
        if (d.length > Shape.MAX_RANK) {
            throw error(t, "rank " + d.length + " exceeds " + Shape.MAX_RANK);
        }
        int[] dims = new int[d.length];
        long total = 1;
        for (int i = 0; i < d.length; i++) {
            if (d[i] < 0 || d[i] > Integer.MAX_VALUE) {
                throw error(t, "dim " + i + " is " + d[i] + "; dims must be in [0, 2^31)");
            }
            dims[i] = (int) d[i];
            total *= d[i]; // both factors are below 2^31 here, so this cannot overflow
            if (total > MAX_BYTES / dt.byteSize()) {
                throw error(t, "dims " + java.util.Arrays.toString(d) + " give more than " + MAX_BYTES + " bytes");
            }
        }
        return Shape.of(dt, dims);
    }

    private static byte[] external(TensorDef t, Path modelDir, long bytes) {
        String loc = t.external().get("location");
        if (loc == null || loc.isEmpty()) {
            throw error(t, "external data without a location");
        }
        if (modelDir == null) {
            throw error(t, "external data '" + loc + "' but the model was not loaded from a folder");
        }
        long offset = number(t, "offset", 0);
        long length = number(t, "length", bytes);
        if (length != bytes) {
            throw error(t, "external data length " + length + " differs from the " + bytes + " bytes its dims need");
        }
        Path p;
        try {
            Path rel = Path.of(loc);
            if (rel.isAbsolute() || rel.getRoot() != null) {
                throw error(t, "external data location '" + loc + "' is absolute; it must be relative to the model folder");
            }
            Path base = modelDir.toRealPath();
            p = base.resolve(rel).normalize();
            if (!p.startsWith(base) || (Files.exists(p) && !p.toRealPath().startsWith(base))) {
                throw error(t, "external data location '" + loc + "' leaves the model folder " + base);
            }
            // Opening a FIFO blocks until a writer comes, a device may never end: only regular files are read.
            if (Files.exists(p) && !Files.isRegularFile(p)) {
                throw error(t, "external data location '" + loc + "' is not a regular file");
            }
        } catch (java.nio.file.InvalidPathException e) {
            throw error(t, "external data location '" + loc + "' is not a valid path");
        } catch (IOException e) {
            throw error(t, "cannot resolve the model folder " + modelDir + ": " + e.getMessage());
        }
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            if (offset + length > ch.size()) {
                throw error(t, "external data [" + offset + ", " + (offset + length) + ") runs past the end of '" + loc
                        + "' (" + ch.size() + " bytes)");
            }
            ByteBuffer b = ByteBuffer.allocate((int) length);
            while (b.hasRemaining()) {
                if (ch.read(b, offset + b.position()) < 0) {
                    throw error(t, "external data file '" + loc + "' shrank while being read");
                }
            }
            return b.array();
        } catch (NoSuchFileException e) {
            throw error(t, "external data file '" + loc + "' does not exist in " + modelDir);
        } catch (IOException e) {
            throw error(t, "cannot read external data '" + loc + "': " + e.getMessage());
        }
    }

    private static long number(TensorDef t, String key, long absent) {
        String s = t.external().get(key);
        if (s == null) {
            return absent;
        }
        try {
            long v = Long.parseLong(s.trim());
            if (v < 0) {
                throw error(t, "external data " + key + " " + v + " is negative");
            }
            return v;
        } catch (NumberFormatException e) {
            throw error(t, "external data " + key + " '" + s + "' is not a number");
        }
    }

    private static OnnxFormatException error(TensorDef t, String message) {
        return new OnnxFormatException(t.where().isEmpty() ? "tensor '" + t.name() + "'" : t.where(), message);
    }
}
