package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.FftNorm;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * The Fourier transforms: every length 1..64 of every kind in f32, f64 and c64, lengths that take other paths
 * (primes past the direct radices, powers of two on a vector path, mixed radices) up to ~12k, inverse(forward)
 * round trips, every norm, non-last axes and batches, an empty batch. (Much longer transforms are a backend's own
 * business: the reference is the direct O(n^2) sum.)
 *
 * <p>Tolerance: the largest error at most {@code tol * rms(expected)}, {@code tol = 5e-7 (1 + log2 n)} for f32
 * and c64 and {@code 2e-14 (1 + log2 n)} for f64: FFT rounding grows with the number of passes.
 */
final class FftCases {
    private FftCases() {}

    static double tol(DType t, int n) {
        return (t == DType.F64 ? 2e-14 : 5e-7) * (1 + Math.log(n) / Math.log(2));
    }

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        for (DType t : new DType[] {DType.F32, DType.C64, DType.F64}) {
            for (int n = 1; n <= 64; n++) {
                c.add(everyKind(t, n, "", FftNorm.BACKWARD, 1));
            }
        }
        for (int n : new int[] {1 << 10, 1 << 12, 1000, 1024 * 3, 3 * 7 * 61, 67, 257, 1009, 256, 512}) {
            c.add(forwardAndOrthoInverse(DType.C64, n));
        }
        c.add(forwardAndOrthoInverse(DType.F32, 1 << 13));
        c.add(forwardAndOrthoInverse(DType.F64, 2 * 1009));
        c.add(forwardAndOrthoInverse(DType.F64, 1 << 12));
        for (int n : new int[] {1 << 9, 1 << 10, 1000, 1009, 1024 * 3}) {
            c.add(OpCase.named("rfft_f32_n" + n)
                    .graph(g -> g.setOutputs(g.fft(g.input("x", of(DType.F32, n)), FftKind.R2C, 0, FftNorm.BACKWARD, n)))
                    .tolerance(DType.F32, spectral(DType.F32, n, 1))
                    .build());
        }
        for (DType t : new DType[] {DType.C64, DType.F64}) {
            for (int n : new int[] {1, 2, 7, 12, 256, 1000, 1024, 4099}) {
                c.add(roundTrips(t, n));
            }
        }
        for (FftNorm norm : FftNorm.values()) {
            for (int n : new int[] {12, 512}) {
                c.add(everyKind(DType.F32, n, "_" + norm.name().toLowerCase(), norm, 1));
            }
        }
        axes(c);
        c.add(OpCase.named("rfft_f32_emptyBatch_0x8")
                .graph(g -> g.setOutputs(g.fft(g.input("x", of(DType.F32, 0, 8)), FftKind.R2C, 1, FftNorm.BACKWARD, 8)))
                .build());
        return new OpFamily("fft", c);
    }

    /** {@code factor * tol(t, n) * rms}. */
    private static Tolerance spectral(DType t, int n, double factor) {
        return Tolerance.spectral(factor * tol(t, n), "FFT rounding grows with log2 n passes");
    }

    /** A complex operand of {@code length}: C64, or F32/F64 with a trailing (re, im) dim. */
    private static Shape complex(DType t, int... dims) {
        if (t == DType.C64) {
            return Shape.of(t, dims);
        }
        int[] d = java.util.Arrays.copyOf(dims, dims.length + 1);
        d[dims.length] = 2;
        return Shape.of(t, d);
    }

    private static DType real(DType t) {
        return t == DType.C64 ? DType.F32 : t;
    }

    /**
     * fft and ifft of a complex signal, rfft of a real one and irfft of random bins (imaginary parts at bin 0 and
     * n/2 included, which irfft ignores), all with {@code norm}.
     */
    private static OpCase everyKind(DType t, int n, String suffix, FftNorm norm, double factor) {
        return OpCase.named("fftEveryKind_" + t(t) + "_n" + n + suffix)
                .graph(g -> {
                    Value x = g.input("x", complex(t, n));
                    Value h = g.input("h", complex(t, n / 2 + 1));
                    List<Value> outs = new ArrayList<>(List.of(g.fft(x, FftKind.C2C_FORWARD, 0, norm, n),
                            g.fft(x, FftKind.C2C_INVERSE, 0, norm, n), g.fft(h, FftKind.C2R, 0, norm, n)));
                    if (t != DType.C64) {
                        outs.add(g.fft(g.input("xr", Shape.of(t, n)), FftKind.R2C, 0, norm, n));
                    }
                    g.setOutputs(outs);
                })
                .tolerance(t, spectral(t, n, factor))
                .tolerance(real(t), spectral(t, n, factor))
                .build();
    }

    private static OpCase forwardAndOrthoInverse(DType t, int n) {
        return OpCase.named("fftAndOrthoIfft_" + t(t) + "_n" + n)
                .graph(g -> {
                    Value x = g.input("x", complex(t, n));
                    g.setOutputs(g.fft(x, FftKind.C2C_FORWARD, 0, FftNorm.BACKWARD, n),
                            g.fft(x, FftKind.C2C_INVERSE, 0, FftNorm.ORTHO, n));
                })
                .tolerance(t, spectral(t, n, 1))
                .build();
    }

    /**
     * {@code ifft(fft(x))} in the three scaling modes and {@code irfft(rfft(x))}, held to 0.8 tol against the
     * reference's round trip (which is x within one f32 rounding); and the ortho transform itself at tol / 2.1,
     * which bounds its energy error (Parseval) by tol.
     */
    private static OpCase roundTrips(DType t, int n) {
        OpCase.Builder b = OpCase.named("fftRoundTrips_" + t(t) + "_n" + n)
                .graph(g -> {
                    Value x = g.input("x", complex(t, n));
                    List<Value> outs = new ArrayList<>();
                    for (FftNorm norm : List.of(FftNorm.BACKWARD, FftNorm.ORTHO, FftNorm.FORWARD)) {
                        outs.add(g.fft(g.fft(x, FftKind.C2C_FORWARD, 0, norm, n), FftKind.C2C_INVERSE, 0, norm, n));
                    }
                    Value xr = g.input("xr", Shape.of(real(t), n));
                    outs.add(g.fft(g.fft(xr, FftKind.R2C, 0, FftNorm.BACKWARD, n), FftKind.C2R, 0, FftNorm.BACKWARD, n));
                    outs.add(g.fft(x, FftKind.C2C_FORWARD, 0, FftNorm.ORTHO, n));
                    g.setOutputs(outs);
                });
        for (int i = 0; i < 4; i++) {
            b.tolerance(i, spectral(t, n, 0.8));
        }
        return b.tolerance(4, Tolerance.spectral(tol(t, n) / 2.1, "tol / 2.1 per value bounds the energy (Parseval) by tol"))
                .build();
    }

    /** Every line of a {@code [3, 2, 5]}-style batch along each axis; per-output rms at half the per-line bound. */
    private static void axes(List<OpCase> c) {
        Object[][] configs = {{DType.F32, 512, 0}, {DType.F32, 512, 1}, {DType.F32, 512, 2}, {DType.F32, 12, 0},
                {DType.F64, 12, 1}, {DType.C64, 256, 1}};
        for (FftKind kind : FftKind.values()) {
            for (Object[] cfg : configs) {
                DType t = (DType) cfg[0];
                int n = (int) cfg[1];
                int axis = (int) cfg[2];
                if (kind == FftKind.R2C && t == DType.C64) {
                    continue;
                }
                int[] dims = {3, 2, 5};
                dims[axis] = kind == FftKind.C2R ? n / 2 + 1 : n;
                Shape in = kind == FftKind.R2C ? Shape.of(t, dims) : complex(t, dims);
                c.add(OpCase.named(kind.label() + "_" + t(t) + "_n" + n + "_axis" + axis + "_batched")
                        .graph(g -> g.setOutputs(g.fft(g.input("x", in), kind, axis, FftNorm.BACKWARD, n)))
                        .tolerance(t, spectral(t, n, 0.5))
                        .tolerance(real(t), spectral(t, n, 0.5))
                        .build());
            }
        }
    }
}
