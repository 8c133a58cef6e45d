package dev.rlx.spark;

import dev.rlx.onnx.text.BertTokenizer;
import java.io.Serializable;

/**
 * A sentence encoder as a task sees it: a serializable recipe, sent to the executors with the job, that loads
 * the model there once per JVM ({@link ExecutorModels}). {@link RlxTextModel} is RLX's; the benchmarks plug
 * in ONNX Runtime through the same interface, so both run exactly the same batches.
 */
public interface TextModel extends Serializable {
    /** Two recipes with the same key load the same model (the key of {@link ExecutorModels}). */
    String key();

    /** Loads the model; called once per JVM and key. */
    Loaded load();

    /** A loaded model: its tokenizer (thread-safe) and its per-task encoders. */
    interface Loaded extends ExecutorModels.LoadedModel<TextEncoder> {
        BertTokenizer tokenizer();
    }
}
