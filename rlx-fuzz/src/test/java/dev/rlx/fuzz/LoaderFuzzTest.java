package dev.rlx.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;

/**
 * Coverage-guided fuzz tests of the readers of untrusted files. Under plain {@code mvn verify} each runs as a
 * regression test over its inputs in {@code src/test/resources/dev/rlx/fuzz/LoaderFuzzTestInputs/<target>/}
 * (seeds made by {@link SeedCorpusTest}, and every crash a fuzzing run found). With {@code JAZZER_FUZZ=1} one
 * target fuzzes for {@code maxDuration}; the build's {@code fuzz-*} executions run each that way in turn.
 */
class LoaderFuzzTest {
    @FuzzTest(maxDuration = "8s")
    void onnx(byte[] data) {
        LoaderFuzzTargets.onnx(data);
    }

    @FuzzTest(maxDuration = "8s")
    void safetensors(byte[] data) {
        LoaderFuzzTargets.safetensors(data);
    }

    @FuzzTest(maxDuration = "8s")
    void npy(byte[] data) throws IOException {
        LoaderFuzzTargets.npy(data);
    }

    @FuzzTest(maxDuration = "8s")
    void graph(byte[] data) {
        LoaderFuzzTargets.graph(data);
    }

    @FuzzTest(maxDuration = "8s")
    void kvSpill(byte[] data) {
        LoaderFuzzTargets.kvSpill(data);
    }
}
