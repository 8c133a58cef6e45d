package dev.rlx.runtime.weights;

import java.util.List;
import java.util.Optional;

/**
 * Named tensors from a weight source (a file or memory). {@code CompiledGraph.setParams(loader)} copies the
 * ones whose names match params. Close the loader to release mapped files; tensors are invalid after.
 */
public interface WeightLoader extends AutoCloseable {
    /** Tensor names in a stable order. */
    List<String> names();

    Optional<WeightTensor> tensor(String name);

    @Override
    void close();
}
