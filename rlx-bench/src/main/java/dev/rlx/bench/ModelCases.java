package dev.rlx.bench;

import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.FftNorm;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
import java.util.Random;
import org.jtransforms.fft.FloatFFT_1D;
import org.jtransforms.utils.CommonUtils;
import org.visnow.jlargearrays.ConcurrencyUtils;

/**
 * Whole-model and FFT cases for the alternated runs ({@code ./rlx-bench/run paired minilm:fp32:128 fft:real:12}), timed
 * per call: {@code minilm:<fp32|int8>:<seq>[x<batch>]} is all-MiniLM-L6-v2 (batch 1 unless given) against ONNX Runtime's CPU provider with
 * the same thread count (as {@link MiniLmBenchmark}), {@code minilm:int8-fp32:<seq>} RLX's int8 model against RLX's
 * fp32 one; {@code fft:<complex|real>:<log2 n>} (or {@code :n<length>} for any length, such as {@code fft:real:n4093})
 * is one-thread f32 FFT against JTransforms (as {@link FftBenchmark}, each call copying its input in).
 */
final class ModelCases {
    private ModelCases() {}

    static boolean handles(String id) {
        return id.startsWith("minilm:") || id.startsWith("fft:");
    }

    static CpuSuiteCase.Info info(String id) {
        String[] p = id.split(":");
        if (p[0].equals("minilm")) {
            int[] sb = seqBatch(p[2]);
            return new CpuSuiteCase.Info("minilm " + p[1], sb[1] + "x" + sb[0], CpuSuiteCase.Unit.MS, 1,
                    p[1].equals(INT8_VS_FP32) ? "rlx fp32" : "onnxruntime");
        }
        return new CpuSuiteCase.Info("fft " + p[1], String.valueOf(fftLength(p[2])), CpuSuiteCase.Unit.MS, 1,
                "jtransforms");
    }

    /** A MiniLM case's {seq, batch}: {@code <seq>} (batch 1) or {@code <seq>x<batch>} (a Spark job's batches). */
    private static int[] seqBatch(String spec) {
        String[] sb = spec.split("x");
        int seq = Integer.parseInt(sb[0]);
        int batch = sb.length > 1 ? Integer.parseInt(sb[1]) : 1;
        if (seq < 2 || seq > 512 || batch < 1 || batch > 256) {
            throw new IllegalArgumentException("minilm shape " + spec + ": sequence 2..512, batch 1..256");
        }
        return new int[] {seq, batch};
    }

    /** An FFT case's length: {@code n<length>} as written, else a power of two given by its log2. */
    private static int fftLength(String spec) {
        int n = spec.startsWith("n") ? Integer.parseInt(spec.substring(1)) : 1 << Integer.parseInt(spec);
        if (n < 2 || n > 1 << 24) {
            throw new IllegalArgumentException("fft length " + spec + ": between 2 and 2^24 points");
        }
        return n;
    }

    static CpuSuiteCase create(String id, int threads) throws Exception {
        String[] p = id.split(":");
        return p[0].equals("minilm") ? miniLm(info(id), p[1], seqBatch(p[2]), threads)
                : fft(info(id), p[1].equals("complex"), fftLength(p[2]));
    }

    /**
     * {@code minilm:int8-fp32:<seq>}: RLX's int8 MiniLM against RLX's fp32 MiniLM as the peer, alternated, so the
     * int8/fp32 ratio of RLX itself is measured under one machine state (above 1, int8 is faster).
     */
    static final String INT8_VS_FP32 = "int8-fp32";

    private static CpuSuiteCase miniLm(CpuSuiteCase.Info info, String model, int[] seqBatch, int threads)
            throws Exception {
        int seq = seqBatch[0];
        int batch = seqBatch[1];
        if (model.equals(INT8_VS_FP32)) {
            return rlxInt8VsFp32(info, seq, batch, threads);
        }
        MiniLm which = model.equals("int8") ? MiniLm.INT8 : MiniLm.FP32;
        Map<String, long[]> data = MiniLmBenchmark.tokens(seq, batch);
        Map<String, Tensor> in = MiniLmBenchmark.inputs(data, batch, seq);
        CompiledGraph[] compiled = new CompiledGraph[1];
        CpuSuiteCases.OrtPeer ort = CpuSuiteCases.OrtPeer.ofLongs(which.modelBytes(), data, new long[] {batch, seq},
                threads);
        CpuSuiteCase c = new CpuSuiteCase(info, () -> compiled[0].run(), ort);
        c.own(ort);
        Session s = c.own(new Session(Device.CPU, CompileOptions.defaults().withThreads(threads)));
        compiled[0] = c.own(which.model().importGraph(OnnxBinding.of(in)).compile(s));
        for (String name : compiled[0].inputNames()) {
            compiled[0].setInput(name, in.get(name));
        }
        return c;
    }

    private static CpuSuiteCase rlxInt8VsFp32(CpuSuiteCase.Info info, int seq, int batch, int threads) {
        Map<String, Tensor> in = MiniLmBenchmark.inputs(MiniLmBenchmark.tokens(seq, batch), batch, seq);
        CompiledGraph[] compiled = new CompiledGraph[2];
        CpuSuiteCase c = new CpuSuiteCase(info, () -> compiled[0].run(), () -> compiled[1].run());
        Session s = c.own(new Session(Device.CPU, CompileOptions.defaults().withThreads(threads)));
        MiniLm[] models = {MiniLm.INT8, MiniLm.FP32};
        for (int i = 0; i < 2; i++) {
            compiled[i] = c.own(models[i].model().importGraph(OnnxBinding.of(in)).compile(s));
            for (String name : compiled[i].inputNames()) {
                compiled[i].setInput(name, in.get(name));
            }
        }
        return c;
    }

    private static CpuSuiteCase fft(CpuSuiteCase.Info info, boolean complex, int n) {
        float[] input = new float[complex ? 2 * n : n];
        Random r = new Random(1);
        for (int i = 0; i < input.length; i++) {
            input[i] = r.nextFloat() - 0.5f;
        }
        float[] work = input.clone();
        Graph g = new Graph("fft");
        Value x = g.input("x", complex ? Shape.of(DType.F32, n, 2) : Shape.of(DType.F32, n));
        g.setOutputs(g.fft(x, complex ? FftKind.C2C_FORWARD : FftKind.R2C, 0, FftNorm.BACKWARD, n));
        ConcurrencyUtils.setNumberOfThreads(1);
        CommonUtils.setThreadsBeginN_1D_FFT_2Threads(Long.MAX_VALUE);
        CommonUtils.setThreadsBeginN_1D_FFT_4Threads(Long.MAX_VALUE);
        FloatFFT_1D jt = new FloatFFT_1D(n);
        CompiledGraph[] compiled = new CompiledGraph[1];
        CpuSuiteCase c = new CpuSuiteCase(info, () -> {
            compiled[0].setInput("x", input);
            compiled[0].run();
        }, () -> {
            System.arraycopy(input, 0, work, 0, input.length);
            if (complex) {
                jt.complexForward(work);
            } else {
                jt.realForward(work);
            }
        });
        Session s = c.own(new Session(Device.CPU, CompileOptions.defaults().withThreads(1)));
        compiled[0] = c.own(s.compile(g));
        return c;
    }
}
