package dev.rlx.runtime;

import dev.rlx.ir.Attrs;
import java.util.List;

/**
 * A custom op implemented in Java over host memory: read {@code inputs}, write every element of
 * {@code outputs}. Called once per run of the compiled graph, from the thread calling {@code run}; it should
 * not keep references to the tensors. Exceptions surface as {@link CustomOpException}.
 */
@FunctionalInterface
public interface HostKernel {
    void execute(List<HostTensor> inputs, List<HostTensor> outputs, Attrs attrs);
}
