package dev.rlx.llm.model;

import dev.rlx.llm.gguf.GgufMetadata;
import dev.rlx.llm.gguf.GgufTensor;
import dev.rlx.llm.model.LlamaModelException.Reason;

/**
 * The cos/sin of every (position, frequency) pair a model's RoPE uses, computed once in double and rounded to
 * f32, so a batch copies the rows of its tokens' positions into the graphs' {@code cos}/{@code sin} inputs
 * (positions are an input; no graph depends on where a sequence is).
 *
 * <p>Frequency {@code i} of a head of size {@code d} is {@code base^(-2i/d) / factor[i]}: factors are 1 without
 * scaling, {@code rope_freqs.weight} when the file has it (what llama.cpp reads for Llama 3.1), Llama 3's
 * wavelength bands from the {@code rope.scaling.*} keys otherwise, or the linear factor for {@code linear}.
 */
public final class RopeTable {
    private final int half;
    private final int positions;
    private final float[] cos;
    private final float[] sin;

    private RopeTable(int half, int positions, double[] freqs) {
        this.half = half;
        this.positions = positions;
        this.cos = new float[positions * half];
        this.sin = new float[positions * half];
        for (int p = 0; p < positions; p++) {
            for (int i = 0; i < half; i++) {
                double theta = p * freqs[i];
                cos[p * half + i] = (float) Math.cos(theta);
                sin[p * half + i] = (float) Math.sin(theta);
            }
        }
    }

    /**
     * The table of {@code positions} positions for {@code c}, reading the scaling type from {@code m} and the
     * factors from {@code ropeFreqs} (null when the file has none).
     *
     * @throws LlamaModelException for a scaling type other than none, linear and llama3, or a rope_freqs tensor of
     *     the wrong length
     */
    public static RopeTable of(LlamaConfig c, GgufMetadata m, GgufTensor ropeFreqs, int positions) {
        int d = c.headDim();
        int half = d / 2;
        double[] freqs = new double[half];
        for (int i = 0; i < half; i++) {
            freqs[i] = Math.pow(c.ropeTheta(), -2.0 * i / d);
        }
        String type = m.getString(c.architecture() + ".rope.scaling.type", "none");
        if (ropeFreqs != null) {
            if (ropeFreqs.elementCount() != half) {
                throw new LlamaModelException(Reason.SHAPE_MISMATCH, "rope_freqs.weight has " + ropeFreqs.elementCount()
                        + " values but the head size " + d + " needs " + half);
            }
            float[] f = ropeFreqs.toFloats();
            for (int i = 0; i < half; i++) {
                freqs[i] /= f[i];
            }
        } else if (type.equals("llama3")) {
            llama3(c, freqs);
        } else if (type.equals("linear")) {
            for (int i = 0; i < half; i++) {
                freqs[i] /= c.ropeScalingFactor() > 0 ? c.ropeScalingFactor() : 1;
            }
        } else if (!type.equals("none")) {
            throw new LlamaModelException(Reason.UNSUPPORTED_ARCHITECTURE, c.architecture() + ".rope.scaling.type '"
                    + type + "' is not supported (none, linear, llama3)");
        }
        return new RopeTable(half, positions, freqs);
    }

    /** Llama 3.1's bands: high frequencies kept, low ones divided by the factor, a smooth blend between. */
    private static void llama3(LlamaConfig c, double[] freqs) {
        double factor = c.ropeScalingFactor();
        if (!(factor > 0)) {
            return;
        }
        double low = c.ropeLowFreqFactor();
        double high = c.ropeHighFreqFactor();
        double old = c.ropeOriginalContext();
        for (int i = 0; i < freqs.length; i++) {
            double wavelen = 2 * Math.PI / freqs[i];
            if (wavelen > old / low) {
                freqs[i] /= factor;
            } else if (wavelen >= old / high) {
                double smooth = (old / wavelen - low) / (high - low);
                freqs[i] = (1 - smooth) * freqs[i] / factor + smooth * freqs[i];
            }
        }
    }

    /** Positions the table covers. */
    public int positions() {
        return positions;
    }

    /** Copies position {@code p}'s cos and sin rows ({@code headDim/2} values each) to {@code cosDst/sinDst[off ..]}. */
    public void copyRow(int p, float[] cosDst, float[] sinDst, int off) {
        System.arraycopy(cos, p * half, cosDst, off, half);
        System.arraycopy(sin, p * half, sinDst, off, half);
    }
}
