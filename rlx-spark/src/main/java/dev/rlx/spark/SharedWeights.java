package dev.rlx.spark;

import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;

/**
 * The one copy of a model's weights that every per-task instance in a JVM reads: a CPU {@link WeightSet}, made
 * through a session of its own (one thread: it compiles and runs nothing), so it outlives the tasks' sessions.
 * The instances' compiles upload each weight once (see {@link dev.rlx.onnx.OnnxRunner}).
 */
final class SharedWeights implements AutoCloseable {
    private final Session owner;
    private final WeightSet set;

    SharedWeights(String name) {
        owner = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
        set = owner.newWeightSet(name);
    }

    WeightSet set() {
        return set;
    }

    @Override
    public void close() {
        set.close(); // its buffers are freed once the last instance's graphs are closed too
        owner.close();
    }
}
