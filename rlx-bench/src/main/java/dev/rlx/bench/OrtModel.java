package dev.rlx.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.rlx.ir.DType;
import dev.rlx.ir.Tensor;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A model file in ONNX Runtime's CPU provider (all graph optimisations), fed fixed inputs: the corpus' peer. */
final class OrtModel implements Runnable, AutoCloseable {
    private final OrtSession session;
    private final Map<String, OnnxTensor> inputs = new LinkedHashMap<>();

    OrtModel(Path model, Map<String, Tensor> in, int threads) throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setIntraOpNumThreads(threads);
            o.setInterOpNumThreads(1);
            o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            session = env.createSession(model.toString(), o);
        }
        for (Map.Entry<String, Tensor> e : in.entrySet()) {
            Tensor t = e.getValue();
            long[] dims = java.util.Arrays.stream(t.shape().dims()).asLongStream().toArray();
            inputs.put(e.getKey(), t.dtype() == DType.I64
                    ? OnnxTensor.createTensor(env, LongBuffer.wrap(longs(t)), dims)
                    : OnnxTensor.createTensor(env, FloatBuffer.wrap(t.toFloatArray()), dims));
        }
    }

    private static long[] longs(Tensor t) {
        long[] out = new long[(int) t.shape().elementCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (long) t.getDouble(i);
        }
        return out;
    }

    /** One run; every output as floats, in the model's output order. */
    List<float[]> outputs() throws OrtException {
        List<float[]> out = new ArrayList<>();
        try (OrtSession.Result r = session.run(inputs)) {
            for (Map.Entry<String, OnnxValue> e : r) {
                FloatBuffer b = ((OnnxTensor) e.getValue()).getFloatBuffer();
                float[] f = new float[b.remaining()];
                b.get(f);
                out.add(f);
            }
        }
        return out;
    }

    @Override
    public void run() {
        try (OrtSession.Result r = session.run(inputs)) {
            r.get(0);
        } catch (OrtException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws OrtException {
        for (OnnxTensor t : inputs.values()) {
            t.close();
        }
        session.close();
    }
}
