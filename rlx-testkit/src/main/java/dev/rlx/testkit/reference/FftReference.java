package dev.rlx.testkit.reference;

import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.util.Arrays;

/**
 * {@code Op.Fft} as the direct DFT of every line along the axis ({@link Dft}: O(n^2) sums with {@code kt}
 * reduced mod n exactly), scaled by the norm. Complex data is C64 or F32/F64 with a trailing (re, im) dim of 2;
 * both lay an element out as two consecutive scalars.
 */
final class FftReference {
    private FftReference() {}

    static RefTensor fft(Op.Fft op, RefTensor x, Shape out) {
        FftKind kind = op.op();
        boolean complexIn = kind != FftKind.R2C;
        boolean complexOut = kind != FftKind.C2R;
        int[] inDims = signalDims(x.shape, complexIn);
        int[] outDims = signalDims(out, complexOut);
        int[][] inLines = Index.lines(inDims, op.axis());
        int[][] outLines = Index.lines(outDims, op.axis());
        Dft dft = new Dft(op.n());
        double scale = op.norm().scale(kind.inverse(), op.n());
        RefTensor y = RefTensor.zeros(out);
        for (int l = 0; l < inLines.length; l++) {
            double[] line = read(x, inLines[l], complexIn);
            double[] result = switch (kind) {
                case C2C_FORWARD -> dft.transform(line, false);
                case C2C_INVERSE -> dft.transform(line, true);
                case R2C -> dft.real(line);
                case C2R -> dft.hermitianInverse(line);
            };
            write(y, outLines[l], result, complexOut, scale);
        }
        return y;
    }

    /** The dims that index elements: the shape less its (re, im) dim when complex data is F32/F64 pairs. */
    private static int[] signalDims(Shape s, boolean complex) {
        int[] d = s.dims();
        return complex && s.dtype() != DType.C64 ? Arrays.copyOf(d, d.length - 1) : d;
    }

    /** One line's values: interleaved (re, im) when complex, else real. */
    private static double[] read(RefTensor x, int[] positions, boolean complex) {
        int w = complex ? 2 : 1;
        double[] v = new double[w * positions.length];
        for (int j = 0; j < positions.length; j++) {
            for (int c = 0; c < w; c++) {
                v[w * j + c] = x.real[w * positions[j] + c];
            }
        }
        return v;
    }

    private static void write(RefTensor y, int[] positions, double[] v, boolean complex, double scale) {
        int w = complex ? 2 : 1;
        for (int j = 0; j < positions.length; j++) {
            for (int c = 0; c < w; c++) {
                int at = w * positions[j] + c;
                double s = scale * v[w * j + c];
                // y.set would treat a C64 scalar index as an element; round each part to f32 directly
                y.real[at] = y.dtype() == DType.C64 ? (float) s : Storage.roundFloat(s, y.dtype());
            }
        }
    }
}
