package dev.rlx.runtime.weights;

import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Weights held in memory, in insertion order; built from {@link Tensor}s or raw bytes. */
public final class BytesWeightLoader implements WeightLoader {
    private final Map<String, WeightTensor> tensors = new LinkedHashMap<>();

    private BytesWeightLoader() {}

    /** A loader over {@code tensors}; names must be unique. */
    public static BytesWeightLoader of(Map<String, Tensor> tensors) {
        BytesWeightLoader l = new BytesWeightLoader();
        tensors.forEach((name, t) -> l.add(name, t.shape(), t.bytes()));
        return l;
    }

    /** Adds a tensor from little-endian bytes of {@code shape}; returns this. */
    public BytesWeightLoader add(String name, Shape shape, byte[] littleEndianBytes) {
        if (tensors.containsKey(name)) {
            throw new IllegalArgumentException("duplicate weight name '" + name + "'");
        }
        if (littleEndianBytes.length != shape.byteSize()) {
            throw new IllegalArgumentException("weight '" + name + "' " + shape + " needs " + shape.byteSize()
                    + " bytes but " + littleEndianBytes.length + " were given");
        }
        tensors.put(name, new WeightTensor(name, shape, MemorySegment.ofArray(littleEndianBytes.clone()).asReadOnly()));
        return this;
    }

    @Override
    public List<String> names() {
        return List.copyOf(tensors.keySet());
    }

    @Override
    public Optional<WeightTensor> tensor(String name) {
        return Optional.ofNullable(tensors.get(name));
    }

    @Override
    public void close() {
        // nothing to release
    }
}
