package dev.rlx.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.rlx.cpu.blas.BlasCore;
import dev.rlx.cpu.blas.OpenBlas;
import dev.rlx.cpu.kernels.VectorMath;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The CPU suite's cases, by id ({@code op:shape}), each built for a thread count: RLX with that many worker
 * threads, the peer with as many. Peers: OpenBLAS through FFM for the matrix products, ONNX Runtime's CPU
 * provider for attention (the plain MatMul-Softmax-MatMul graph a model exports) and conv, and a plain memory
 * copy of the same bytes for the bandwidth-bound row ops.
 */
final class CpuSuiteCases {
    private CpuSuiteCases() {}

    private static final int HEADS = 12;
    private static final int HEAD_DIM = 64;
    private static final int CHANNELS = 64;
    private static final int SIDE = 56;

    /** What case {@code id} is (the report reads this in its own JVM, without building the case). */
    static CpuSuiteCase.Info info(String id) {
        String[] parts = id.split(":");
        return switch (parts[0]) {
            case "sgemm" -> {
                int n = Integer.parseInt(parts[1]);
                yield gemmInfo("sgemm", n, n, n);
            }
            case "apisgemm" -> {
                int n = Integer.parseInt(parts[1]);
                yield gemmInfo("apisgemm", n, n, n);
            }
            case "gemm" -> {
                int[] mkn = gemmShape(parts);
                yield gemmInfo("gemm", mkn[0], mkn[1], mkn[2]);
            }
            case "gemv" -> gemmInfo("gemv", 1, 4096, 4096);
            case "softmax", "rmsnorm", "elementwise" -> new CpuSuiteCase.Info(
                    parts[0].equals("elementwise") ? "elementwise x*0.5+1" : parts[0], "4096x4096",
                    CpuSuiteCase.Unit.GB, 2.0 * 4 * 4096 * 4096 / 1e9, "memory copy");
            case "attention" -> {
                int seq = Integer.parseInt(parts[1]);
                yield new CpuSuiteCase.Info("attention", "1x" + HEADS + "x" + seq + "x" + HEAD_DIM,
                        CpuSuiteCase.Unit.GFLOP, 4.0 * HEADS * seq * seq * HEAD_DIM / 1e9, "onnxruntime");
            }
            case "conv3x3" -> new CpuSuiteCase.Info("conv2d 3x3", "1x64x56x56 -> 64", CpuSuiteCase.Unit.GFLOP,
                    2.0 * CHANNELS * CHANNELS * 9 * SIDE * SIDE / 1e9, "onnxruntime");
            default -> throw new IllegalArgumentException("unknown case " + id);
        };
    }

    /** {@code gemm} is the transformer shape 128x384 . 384x1536; {@code gemm:MxKxN} any other. */
    private static int[] gemmShape(String[] parts) {
        if (parts.length < 2 || parts[1].equals("128x384x1536")) {
            return new int[] {128, 384, 1536};
        }
        String[] d = parts[1].split("x");
        if (d.length != 3) {
            throw new IllegalArgumentException("gemm shape " + parts[1] + ": expected MxKxN");
        }
        int[] mkn = new int[3];
        for (int i = 0; i < 3; i++) {
            mkn[i] = Integer.parseInt(d[i]);
            if (mkn[i] < 1 || mkn[i] > 16384) {
                throw new IllegalArgumentException("gemm shape " + parts[1] + ": dimensions 1..16384");
            }
        }
        return mkn;
    }

    private static CpuSuiteCase.Info gemmInfo(String op, int m, int k, int n) {
        return new CpuSuiteCase.Info(op, m + "x" + k + " . " + k + "x" + n, CpuSuiteCase.Unit.GFLOP,
                2.0 * m * k * n / 1e9, "openblas " + (m == 1 ? "sgemv" : "sgemm"));
    }

    static CpuSuiteCase create(String id, int threads) throws Exception {
        CpuSuiteCase.Info info = info(id);
        String[] parts = id.split(":");
        return switch (parts[0]) {
            case "sgemm" -> {
                int n = Integer.parseInt(parts[1]);
                yield gemm(info, n, n, n, threads);
            }
            case "apisgemm" -> {
                int n = Integer.parseInt(parts[1]);
                yield apiGemm(info, n, threads);
            }
            case "gemm" -> {
                int[] mkn = gemmShape(parts);
                yield gemm(info, mkn[0], mkn[1], mkn[2], threads);
            }
            case "gemv" -> gemm(info, 1, 4096, 4096, threads);
            case "softmax", "rmsnorm", "elementwise" -> rows(info, parts[0], 4096, 4096, threads);
            case "attention" -> attention(info, Integer.parseInt(parts[1]), threads);
            case "conv3x3" -> conv(info, threads);
            default -> throw new IllegalArgumentException("unknown case " + id);
        };
    }

    private static float[] random(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextFloat() - 0.5f;
        }
        return a;
    }

    private static CompiledGraph compile(CpuSuiteCase c, Graph g, int threads) {
        Session s = c.own(new Session(Device.CPU, CompileOptions.defaults().withThreads(threads)));
        return c.own(s.compile(g));
    }

    /**
     * The OpenBLAS peer, refused when it runs a kernel family narrower than RLX's vectors: a library that does not
     * know the CPU falls back to a generic core, and a ratio against it would flatter RLX.
     */
    private static OpenBlas blas(int threads) {
        OpenBlas b = OpenBlas.load().orElseThrow(() -> new IllegalStateException(
                "OpenBLAS not found (the org.bytedeco:openblas jar is a dependency of rlx-bench)"));
        String why = BlasCore.unfit(b.coreName(), VectorMath.F.vectorBitSize());
        if (why != null) {
            throw new IllegalStateException("refusing to compare with " + b.source() + ": " + why
                    + "; set RLX_OPENBLAS_LIBRARY to a newer OpenBLAS (unset OPENBLAS_CORETYPE)");
        }
        b.setThreads(threads);
        return b;
    }

    /** {@code [m,k] x [k,n]}; with m = 1 the peer is OpenBLAS's SGEMV, as RLX_CPU_BLAS=openblas would call. */
    private static CpuSuiteCase gemm(CpuSuiteCase.Info info, int m, int k, int n, int threads) {
        Graph g = new Graph(info.op());
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.F32, m, k)), g.param("b", Shape.of(DType.F32, k, n))));
        Random r = new Random(1);
        float[] a = random(r, m * k);
        float[] b = random(r, k * n);
        OpenBlas blas = blas(threads);
        Arena arena = Arena.ofShared();
        MemorySegment as = arena.allocate(4L * m * k, 64);
        MemorySegment bs = arena.allocate(4L * k * n, 64);
        MemorySegment cs = arena.allocate(4L * m * n, 64);
        MemorySegment.copy(a, 0, as, ValueLayout.JAVA_FLOAT, 0, a.length);
        MemorySegment.copy(b, 0, bs, ValueLayout.JAVA_FLOAT, 0, b.length);
        Runnable peer = m == 1 ? () -> blas.sgemv(true, k, n, bs, n, as, cs)
                : () -> blas.sgemm(false, false, m, n, k, as, k, bs, n, cs, n);
        CompiledGraph[] compiled = new CompiledGraph[1];
        CpuSuiteCase c = new CpuSuiteCase(info, () -> compiled[0].run(), peer);
        c.own(arena);
        compiled[0] = compile(c, g, threads);
        compiled[0].setInput("a", a);
        compiled[0].setParam("b", b);
        return c;
    }

    /**
     * SGEMM as a user of the public API writes it: {@code matmul(input a [n,n], param b [n,n])} on a default CPU
     * session with the case's thread count, each call {@code setInput("a", A); run(); output(0).copyTo(C)} from
     * and into Java arrays; the peer is OpenBLAS's {@code cblas_sgemm} on the same data in native memory.
     */
    private static CpuSuiteCase apiGemm(CpuSuiteCase.Info info, int n, int threads) {
        Graph g = new Graph("sgemm");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.F32, n, n)), g.param("b", Shape.of(DType.F32, n, n))));
        Random r = new Random(1);
        float[] a = random(r, n * n);
        float[] b = random(r, n * n);
        float[] out = new float[n * n];
        OpenBlas blas = blas(threads);
        Arena arena = Arena.ofShared();
        MemorySegment as = arena.allocate(4L * n * n, 64);
        MemorySegment bs = arena.allocate(4L * n * n, 64);
        MemorySegment cs = arena.allocate(4L * n * n, 64);
        MemorySegment.copy(a, 0, as, ValueLayout.JAVA_FLOAT, 0, a.length);
        MemorySegment.copy(b, 0, bs, ValueLayout.JAVA_FLOAT, 0, b.length);
        CompiledGraph[] compiled = new CompiledGraph[1];
        CpuSuiteCase c = new CpuSuiteCase(info, () -> {
            compiled[0].setInput("a", a);
            compiled[0].run();
            compiled[0].output(0).copyTo(out);
        }, () -> blas.sgemm(false, false, n, n, n, as, n, bs, n, cs, n));
        c.own(arena);
        compiled[0] = compile(c, g, threads);
        compiled[0].setParam("b", b);
        return c;
    }

    /** A row op over {@code [rows, cols]} f32: one read and one write of the tensor, like a copy of it. */
    private static CpuSuiteCase rows(CpuSuiteCase.Info info, String op, int rows, int cols, int threads) {
        Graph g = new Graph(op);
        Value x = g.input("x", Shape.of(DType.F32, rows, cols));
        Value y = switch (op) {
            case "softmax" -> g.softmax(x, 1);
            case "rmsnorm" -> g.rmsNorm(x, g.param("gamma", Shape.of(DType.F32, cols)), 1e-6f);
            default -> g.add(g.mul(x, g.scalar(0.5f)), g.scalar(1f)); // fused into one kernel
        };
        g.setOutputs(y);
        long bytes = 4L * rows * cols;
        MemoryCopy copy = new MemoryCopy(bytes, threads);
        CompiledGraph[] compiled = new CompiledGraph[1];
        CpuSuiteCase c = new CpuSuiteCase(info, () -> compiled[0].run(), copy);
        c.own(copy);
        compiled[0] = compile(c, g, threads);
        compiled[0].setInput("x", random(new Random(2), rows * cols));
        if (op.equals("rmsnorm")) {
            compiled[0].setParam("gamma", random(new Random(3), cols));
        }
        return c;
    }

    /** Self-attention, batch 1, 12 heads of 64, no mask, [B, H, S, D]; ONNX Runtime runs the unfused graph. */
    private static CpuSuiteCase attention(CpuSuiteCase.Info info, int seq, int threads) throws OrtException {
        int heads = HEADS;
        int dim = HEAD_DIM;
        long[] dims = {1, heads, seq, dim};
        Graph g = new Graph("attention");
        Shape s = Shape.of(DType.F32, 1, heads, seq, dim);
        Value q = g.input("q", s);
        Value k = g.input("k", s);
        Value v = g.input("v", s);
        g.setOutputs(g.attention(q, k, v, Op.Attention.of(heads, heads, dim).withLayout(HeadLayout.BHSD)));
        byte[] model = new OnnxModelWriter()
                .input("q", dims).input("k", dims).input("v", dims).output("o", dims)
                .initializer("scale", new float[] {(float) (1 / Math.sqrt(dim))})
                .node("Transpose", List.of("k"), List.of("kt"), "perm", new int[] {0, 1, 3, 2})
                .node("MatMul", List.of("q", "kt"), List.of("s"))
                .node("Mul", List.of("s", "scale"), List.of("ss"))
                .node("Softmax", List.of("ss"), List.of("p"), "axis", -1)
                .node("MatMul", List.of("p", "v"), List.of("o"))
                .build();
        Random r = new Random(4);
        int n = heads * seq * dim;
        Map<String, float[]> data = Map.of("q", random(r, n), "k", random(r, n), "v", random(r, n));
        CompiledGraph[] compiled = new CompiledGraph[1];
        OrtPeer ort = new OrtPeer(model, data, dims, threads);
        CpuSuiteCase c = new CpuSuiteCase(info, () -> compiled[0].run(), ort);
        c.own(ort);
        compiled[0] = compile(c, g, threads);
        data.forEach(compiled[0]::setInput);
        return c;
    }

    /** 3x3 convolution, 64 to 64 channels on 56x56, padding 1, with bias. */
    private static CpuSuiteCase conv(CpuSuiteCase.Info info, int threads) throws OrtException {
        int ch = CHANNELS;
        int hw = SIDE;
        Graph g = new Graph("conv");
        Value x = g.input("x", Shape.of(DType.F32, 1, ch, hw, hw));
        Value w = g.param("w", Shape.of(DType.F32, ch, ch, 3, 3));
        Value b = g.param("b", Shape.of(DType.F32, ch));
        g.setOutputs(g.conv(x, w, b, Op.Conv.of(2).withPads(1, 1)));
        Random r = new Random(5);
        float[] xs = random(r, ch * hw * hw);
        float[] ws = random(r, ch * ch * 9);
        float[] bs = random(r, ch);
        long[] xd = {1, ch, hw, hw};
        byte[] model = new OnnxModelWriter()
                .input("x", xd).output("y", xd)
                .initializer("w", ws, ch, ch, 3, 3).initializer("b", bs, ch)
                .node("Conv", List.of("x", "w", "b"), List.of("y"), "pads", new int[] {1, 1, 1, 1},
                        "kernel_shape", new int[] {3, 3})
                .build();
        CompiledGraph[] compiled = new CompiledGraph[1];
        OrtPeer ort = new OrtPeer(model, Map.of("x", xs), xd, threads);
        CpuSuiteCase c = new CpuSuiteCase(info, () -> compiled[0].run(), ort);
        c.own(ort);
        compiled[0] = compile(c, g, threads);
        compiled[0].setInput("x", xs);
        compiled[0].setParam("w", ws);
        compiled[0].setParam("b", bs);
        return c;
    }

    /** A plain copy of {@code bytes} between two native buffers, split over {@code threads} threads. */
    static final class MemoryCopy implements Runnable, AutoCloseable {
        private final Arena arena = Arena.ofShared();
        private final MemorySegment src;
        private final MemorySegment dst;
        private final int threads;
        private final ExecutorService pool;

        MemoryCopy(long bytes, int threads) {
            this.src = arena.allocate(bytes, 64);
            this.dst = arena.allocate(bytes, 64);
            src.fill((byte) 1);
            dst.fill((byte) 2);
            this.threads = threads;
            this.pool = threads > 1 ? Executors.newFixedThreadPool(threads - 1) : null;
        }

        private void part(int i) {
            long size = src.byteSize();
            long from = size * i / threads & ~63L;
            long to = i + 1 == threads ? size : size * (i + 1) / threads & ~63L;
            MemorySegment.copy(src, from, dst, from, to - from);
        }

        @Override
        public void run() {
            if (pool == null) {
                part(0);
                return;
            }
            @SuppressWarnings("unchecked")
            Future<?>[] done = new Future<?>[threads - 1];
            for (int i = 1; i < threads; i++) {
                int p = i;
                done[i - 1] = pool.submit(() -> part(p));
            }
            part(0);
            for (Future<?> f : done) {
                try {
                    f.get();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        @Override
        public void close() {
            if (pool != null) {
                pool.shutdownNow();
            }
            arena.close();
        }
    }

    /** One ONNX Runtime session (all graph optimisations, the given intra-op threads) with fixed inputs. */
    static final class OrtPeer implements Runnable, AutoCloseable {
        private final OrtSession session;
        private final Map<String, OnnxTensor> inputs = new java.util.HashMap<>();

        /** A session fed float inputs, all of shape {@code dims}. */
        OrtPeer(byte[] model, Map<String, float[]> data, long[] dims, int threads) throws OrtException {
            this(model, threads);
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            for (Map.Entry<String, float[]> e : data.entrySet()) {
                inputs.put(e.getKey(), OnnxTensor.createTensor(env, FloatBuffer.wrap(e.getValue()), dims));
            }
        }

        /** A session fed int64 inputs, all of shape {@code dims} (token ids, masks). */
        static OrtPeer ofLongs(byte[] model, Map<String, long[]> data, long[] dims, int threads) throws OrtException {
            OrtPeer p = new OrtPeer(model, threads);
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            for (Map.Entry<String, long[]> e : data.entrySet()) {
                p.inputs.put(e.getKey(), OnnxTensor.createTensor(env, java.nio.LongBuffer.wrap(e.getValue()), dims));
            }
            return p;
        }

        private OrtPeer(byte[] model, int threads) throws OrtException {
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
                o.setIntraOpNumThreads(threads);
                o.setInterOpNumThreads(1);
                o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
                this.session = env.createSession(model, o);
            }
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
}
