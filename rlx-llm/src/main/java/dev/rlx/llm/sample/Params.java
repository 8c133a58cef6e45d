package dev.rlx.llm.sample;

/** Parameter checks shared by the sampler factories; failures name the parameter. */
final class Params {
    private Params() {}

    static float notNaN(String sampler, String name, float v) {
        if (Float.isNaN(v)) {
            throw new SamplingException(name, -1, sampler + ": " + name + " is NaN");
        }
        return v;
    }

    static float finite(String sampler, String name, float v) {
        if (!Float.isFinite(v)) {
            throw new SamplingException(name, -1, sampler + ": " + name + " must be finite but is " + v);
        }
        return v;
    }

    static int atLeast(String sampler, String name, int v, int min) {
        if (v < min) {
            throw new SamplingException(name, -1, sampler + ": " + name + " must be >= " + min + " but is " + v);
        }
        return v;
    }
}
