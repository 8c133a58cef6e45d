package dev.rlx.cuda;

import dev.rlx.cuda.bindings.Cublas;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.ReduceKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Turns each node of a planned graph into {@link Step}s over the values' device addresses: element-wise ops into
 * elementwise.cu, a Fused program into one generated kernel, movement into strided copies, float matmuls into
 * cuBLAS GEMMs (the tiled kernel for the rest), reductions, gathers and the others into their kernels. Views take
 * none. Needs no device: addresses come from {@code address}, so tests lower graphs and compile every kernel
 * variant without a GPU. The same structure as the Vulkan backend's lowering, so both read alike.
 */
final class CudaLowering {
    /** Highest rank the index arithmetic of the kernels takes. */
    static final int MAX_RANK = 8;
    /** Operands a Fused program may have: ptr[0] is the result, ptr[1..7] the operands. */
    static final int MAX_FUSED_INPUTS = 7;
    private static final int LOCAL = 128;
    /** Reductions of at least this many elements per output take a block per output. */
    private static final int PARALLEL_REDUCE = 2048;

    private final ToLongFunction<Value> address;
    private final boolean cublas;
    private final List<Step> out = new ArrayList<>();

    /** {@code cublas}: whether float products may go to cuBLAS (else the tiled kernel runs them). */
    CudaLowering(ToLongFunction<Value> address, boolean cublas) {
        this.address = address;
        this.cublas = cublas;
    }

    List<Step> steps() {
        return out;
    }

    void lower(Node n) {
        String what = "node %" + n.id() + " " + n.op().label();
        switch (n.op()) {
            case Op.Input i -> { }
            case Op.Param p -> { }
            case Op.Constant c -> { }
            case Op.Unary u -> elementwise(n, what, CudaExpressions.unary(u.op(), n.inputs().get(0).dtype()));
            case Op.Binary b -> elementwise(n, what, CudaExpressions.binary(b.op()));
            case Op.Compare c -> elementwise(n, what, CudaExpressions.compare(c.op()));
            case Op.Where w -> elementwise(n, what, CudaExpressions.where());
            case Op.Cast c -> elementwise(n, what, CudaExpressions.cast(n.inputs().get(0).dtype(), c.to()));
            case Op.Fused f -> fused(n, f, what);
            case Op.Reshape r -> copy(what, n.inputs().get(0), n.output(), new int[] {(int) n.shape().elementCount()},
                    new int[] {1}, new int[] {1}, 0, 0);
            case Op.Transpose t -> transpose(n, t, what);
            case Op.Slice s -> slice(n, s, what);
            case Op.Expand e -> expand(n, what);
            case Op.Concat c -> concat(n, c, what);
            case Op.MatMul m -> matmul(n, m, what);
            case Op.Reduce r -> reduce(n, r, what);
            case Op.Gather g -> gather(n, g, what);
            case Op.ArgReduce a -> alongAxis(n, a.axis(), what, a.op() == Op.ArgReduce.Kind.ARGMAX ? "ARGMAX" : "ARGMIN",
                    false, false);
            case Op.Conv c -> conv(n, c.strides(), c.pads(), c.dilations(), c.groups(), false, what);
            case Op.ConvTranspose c -> conv(n, c.strides(), c.pads(), c.dilations(), c.groups(), true, what);
            case Op.ScatterAdd sa -> scatterAdd(n, sa, what);
            case Op.TopK t -> topK(n, t, what);
            case Op.Pool p -> pool(n, p, what);
            case Op.Cumsum c -> alongAxis(n, c.axis(), what, "CUMSUM", c.exclusive(), c.reverse());
            default -> throw new CompileException("CUDA: no kernel for " + what + " (it should have been refused)");
        }
    }

    // ---------------------------------------------------------------- element-wise

    private void elementwise(Node n, String what, String expr) {
        Shape o = n.shape();
        int rank = o.rank();
        Map<String, String> m = new HashMap<>();
        m.put("ARITY", Integer.toString(n.inputs().size()));
        m.put("EXPR", expr);
        CudaTypes.define(m, "OUT", o.dtype());
        String[] names = {"A", "B", "C"};
        int[] ints = new int[34];
        ints[0] = (int) o.elementCount();
        ints[1] = rank;
        for (int d = 0; d < rank; d++) {
            ints[2 + d] = o.dim(d);
        }
        long[] ptrs = new long[4];
        ptrs[0] = address.applyAsLong(n.output());
        for (int k = 0; k < n.inputs().size(); k++) {
            Value v = n.inputs().get(k);
            CudaTypes.define(m, names[k], v.dtype());
            System.arraycopy(broadcastStrides(v.shape(), o), 0, ints, 10 + 8 * k, rank);
            ptrs[1 + k] = address.applyAsLong(v);
        }
        for (int k = n.inputs().size(); k < 3; k++) {
            CudaTypes.define(m, names[k], o.dtype());
        }
        add("elementwise", m, what, ptrs, ints, o.elementCount());
    }

    /** A Fused program as one generated kernel: each step's expression in a scope where a and b are its operands. */
    private void fused(Node n, Op.Fused f, String what) {
        Shape o = n.shape();
        int rank = o.rank();
        int inputs = n.inputs().size();
        if (inputs > MAX_FUSED_INPUTS) {
            throw new CompileException("CUDA: " + what + " has " + inputs + " operands, more than "
                    + MAX_FUSED_INPUTS + " (it should have been refused)");
        }
        DType t = o.dtype();
        StringBuilder body = new StringBuilder();
        for (int k = 0; k < inputs; k++) {
            body.append("A_C v").append(k).append(" = A_LOAD(BUF(A_S, ").append(1 + k).append(")[off[").append(k)
                    .append("]]); ");
        }
        int v = inputs;
        for (ElementwiseProgram.Step step : f.program().steps()) {
            String expr = step.isUnary() ? CudaExpressions.unary(step.unary(), t)
                    : CudaExpressions.binary(step.binary());
            body.append("A_C v").append(v).append("; { A_C a = v").append(step.a()).append("; ");
            if (!step.isUnary()) {
                body.append("A_C b = v").append(step.b()).append("; ");
            }
            body.append("v").append(v).append(" = A_C(").append(expr).append("); } ");
            v++;
        }
        Map<String, String> m = new HashMap<>();
        CudaTypes.define(m, "A", t);
        m.put("INPUTS", Integer.toString(inputs));
        m.put("FUSED_BODY", body.toString());
        m.put("FUSED_RESULT", "v" + (v - 1));
        int[] ints = new int[10 + 8 * inputs];
        ints[0] = (int) o.elementCount();
        ints[1] = rank;
        for (int d = 0; d < rank; d++) {
            ints[2 + d] = o.dim(d);
        }
        long[] ptrs = new long[1 + inputs];
        ptrs[0] = address.applyAsLong(n.output());
        for (int k = 0; k < inputs; k++) {
            Value in = n.inputs().get(k);
            System.arraycopy(broadcastStrides(in.shape(), o), 0, ints, 10 + 8 * k, rank);
            ptrs[1 + k] = address.applyAsLong(in);
        }
        add("fused", m, what, ptrs, ints, o.elementCount());
    }

    /** Element strides of {@code in} per dim of {@code out} under NumPy broadcasting (0 where it repeats). */
    static int[] broadcastStrides(Shape in, Shape out) {
        int[] s = new int[out.rank()];
        long[] c = in.strides();
        int shift = out.rank() - in.rank();
        for (int d = 0; d < in.rank(); d++) {
            s[shift + d] = in.dim(d) == 1 && out.dim(shift + d) != 1 ? 0 : (int) c[d];
        }
        return s;
    }

    // ---------------------------------------------------------------- movement

    private void transpose(Node n, Op.Transpose t, String what) {
        Shape in = n.inputs().get(0).shape();
        Shape o = n.shape();
        long[] is = in.strides();
        int[] st = new int[o.rank()];
        for (int d = 0; d < o.rank(); d++) {
            st[d] = (int) is[t.perm().get(d)];
        }
        copy(what, n.inputs().get(0), n.output(), o.dims(), st, contiguous(o), 0, 0);
    }

    private void slice(Node n, Op.Slice s, String what) {
        Shape in = n.inputs().get(0).shape();
        Shape o = n.shape();
        int[] st = toInts(in.strides());
        int base = s.start() * st[s.axis()];
        st[s.axis()] *= s.step();
        copy(what, n.inputs().get(0), n.output(), o.dims(), st, contiguous(o), base, 0);
    }

    private void expand(Node n, String what) {
        Shape o = n.shape();
        copy(what, n.inputs().get(0), n.output(), o.dims(), broadcastStrides(n.inputs().get(0).shape(), o),
                contiguous(o), 0, 0);
    }

    private void concat(Node n, Op.Concat c, String what) {
        Shape o = n.shape();
        int[] os = contiguous(o);
        int at = 0;
        for (Value v : n.inputs()) {
            if (v.shape().elementCount() > 0) {
                copy(what, v, n.output(), v.shape().dims(), contiguous(v.shape()), os, 0, at * os[c.axis()]);
            }
            at += v.shape().dim(c.axis());
        }
    }

    private void copy(String what, Value in, Value outValue, int[] dims, int[] inStrides, int[] outStrides,
                      int inBase, int outBase) {
        long count = 1;
        for (int d : dims) {
            count *= d;
        }
        int[] ints = new int[28];
        ints[0] = (int) count;
        ints[1] = dims.length;
        for (int d = 0; d < dims.length; d++) {
            ints[2 + d] = dims[d];
            ints[10 + d] = inStrides[d];
            ints[18 + d] = outStrides[d];
        }
        ints[26] = inBase;
        ints[27] = outBase;
        Map<String, String> m = Map.of("T", CudaTypes.rawType(in.dtype().byteSize()));
        add("copy", m, what, new long[] {address.applyAsLong(outValue), address.applyAsLong(in)}, ints, count);
    }

    // ---------------------------------------------------------------- matmul

    private void matmul(Node n, Op.MatMul mm, String what) {
        Shape a = n.inputs().get(0).shape();
        Shape b = n.inputs().get(1).shape();
        // Logical [.., M, K] x [.., K, N]: a rank-1 lhs is a row, a rank-1 rhs a column.
        int ar = a.rank();
        int br = b.rank();
        long[] as = a.strides();
        long[] bs = b.strides();
        int mDim;
        int kDim;
        int nDim;
        int sam;
        int sak;
        int sbk;
        int sbn;
        if (ar == 1) {
            mDim = 1;
            kDim = a.dim(0);
            sam = 0;
            sak = 1;
        } else if (mm.transA()) {
            mDim = a.dim(ar - 1);
            kDim = a.dim(ar - 2);
            sam = 1;
            sak = (int) as[ar - 2];
        } else {
            mDim = a.dim(ar - 2);
            kDim = a.dim(ar - 1);
            sam = (int) as[ar - 2];
            sak = 1;
        }
        if (br == 1) {
            nDim = 1;
            sbk = 1;
            sbn = 0;
        } else if (mm.transB()) {
            nDim = b.dim(br - 2);
            sbk = 1;
            sbn = (int) bs[br - 2];
        } else {
            nDim = b.dim(br - 1);
            sbk = (int) bs[br - 2];
            sbn = 1;
        }
        Shape o = n.shape();
        int batchRank = Math.max(Math.max(ar, br) - 2, 0);
        if (batchRank > 6) {
            throw new CompileException("CUDA: " + what + " has more than 6 batch dims");
        }
        int[] ints = new int[26];
        ints[0] = mDim;
        ints[1] = nDim;
        ints[2] = kDim;
        ints[3] = batchRank;
        int batches = 1;
        for (int d = 0; d < batchRank; d++) {
            int ad = d - (batchRank - (ar - 2));
            int bd = d - (batchRank - (br - 2));
            int sizeA = ad >= 0 && ar > 2 ? a.dim(ad) : 1;
            int sizeB = bd >= 0 && br > 2 ? b.dim(bd) : 1;
            int size = Math.max(sizeA, sizeB);
            ints[4 + d] = size;
            ints[10 + d] = sizeA == size && ad >= 0 && ar > 2 && size != 1 ? (int) as[ad] : 0;
            ints[16 + d] = sizeB == size && bd >= 0 && br > 2 && size != 1 ? (int) bs[bd] : 0;
            batches *= size;
        }
        ints[22] = sam;
        ints[23] = sak;
        ints[24] = sbk;
        ints[25] = sbn;
        if (o.elementCount() == 0) {
            return;
        }
        long pa = address.applyAsLong(n.inputs().get(0));
        long pb = address.applyAsLong(n.inputs().get(1));
        long pc = address.applyAsLong(n.output());
        if (cublas && gemm(what, a.dtype(), o.dtype(), mDim, nDim, kDim, sam, sak, sbk, sbn, ints, batchRank,
                batches, pa, pb, pc)) {
            return;
        }
        Map<String, String> m = new HashMap<>();
        CudaTypes.define(m, "A", a.dtype());
        CudaTypes.define(m, "OUT", o.dtype());
        m.put("ACC", CudaTypes.accumulator(a.dtype()));
        out.add(new Step.Launch(KernelSource.of("matmul", m), what, new long[] {pc, pa, pb}, ints,
                (nDim + 15) / 16, (mDim + 15) / 16, batches, 16, 16));
    }

    /**
     * The product as one cuBLAS strided batched GEMM, if it is one: a float dtype, and batch dims each operand
     * walks with a single stride. Row-major C = A B is column-major C^T = B^T A^T, so B is cuBLAS's first
     * operand. Returns false (the kernel runs it) otherwise.
     */
    private boolean gemm(String what, DType t, DType outType, int m, int n, int k, int sam, int sak, int sbk, int sbn,
                         int[] ints, int batchRank, int batches, long pa, long pb, long pc) {
        int cudaType;
        int compute = Cublas.CUBLAS_COMPUTE_32F;
        switch (t) {
            case F32 -> cudaType = Cublas.CUDA_R_32F;
            case F16 -> cudaType = Cublas.CUDA_R_16F;
            case BF16 -> cudaType = Cublas.CUDA_R_16BF;
            case F64 -> {
                cudaType = Cublas.CUDA_R_64F;
                compute = Cublas.CUBLAS_COMPUTE_64F;
            }
            default -> {
                return false;
            }
        }
        if (outType != t || k == 0) {
            return false;
        }
        long strideA = flatStride(ints, 10, batchRank);
        long strideB = flatStride(ints, 16, batchRank);
        if (strideA < 0 || strideB < 0) {
            return false;
        }
        // cuBLAS's first operand: B^T (N x K column-major).
        int opB;
        int ldb;
        if ((sbn == 1 || n == 1) && sbk >= Math.max(1, n)) {
            opB = Cublas.CUBLAS_OP_N;
            ldb = sbk;
        } else if (sbk == 1 && sbn >= Math.max(1, k)) {
            opB = Cublas.CUBLAS_OP_T;
            ldb = sbn;
        } else {
            return false;
        }
        // Its second: A^T (K x M column-major).
        int opA;
        int lda;
        if (sak == 1 && (m == 1 || sam >= Math.max(1, k))) {
            opA = Cublas.CUBLAS_OP_N;
            lda = Math.max(sam, Math.max(1, k));
        } else if (sam == 1 && sak >= Math.max(1, m)) {
            opA = Cublas.CUBLAS_OP_T;
            lda = sak;
        } else {
            return false;
        }
        out.add(new Step.Gemm(what, opB, opA, n, m, k, pb, ldb, strideB, pa, lda, strideA, pc, n, (long) m * n,
                batches, cudaType, compute));
        return true;
    }

    /** The one element stride that walks the flattened batch dims, or -1 when no single stride does. */
    private static long flatStride(int[] ints, int at, int batchRank) {
        long stride = -1;
        long inner = 1;
        for (int d = batchRank - 1; d >= 0; d--) {
            int size = ints[4 + d];
            if (size != 1) {
                long s = ints[at + d];
                if (stride < 0) {
                    stride = inner == 1 ? s : (s % inner == 0 ? s / inner : -2);
                    if (stride == -2) {
                        return -1;
                    }
                } else if (s != stride * inner) {
                    return -1;
                }
            }
            inner *= size;
        }
        return Math.max(stride, 0);
    }

    // ---------------------------------------------------------------- reductions

    private void reduce(Node n, Op.Reduce r, String what) {
        Shape in = n.inputs().get(0).shape();
        long[] st = in.strides();
        int[] ints = new int[36];
        int kept = 0;
        int red = 0;
        long count = 1;
        for (int d = 0; d < in.rank(); d++) {
            if (r.axes().contains(d)) {
                ints[19 + red] = in.dim(d);
                ints[27 + red] = (int) st[d];
                red++;
                count *= in.dim(d);
            } else {
                ints[2 + kept] = in.dim(d);
                ints[10 + kept] = (int) st[d];
                kept++;
            }
        }
        long outputs = n.shape().elementCount();
        ints[0] = (int) outputs;
        ints[1] = kept;
        ints[18] = red;
        ints[35] = (int) count;
        DType t = in.dtype();
        String acc = CudaTypes.accumulator(t);
        Map<String, String> m = new HashMap<>();
        CudaTypes.define(m, "A", t);
        CudaTypes.define(m, "OUT", n.shape().dtype());
        m.put("ACC", acc);
        m.put("INIT", switch (r.op()) {
            case SUM, MEAN -> acc + "(0)";
            case PROD -> acc + "(1)";
            case MAX -> lowest(t, acc);
            case MIN -> highest(t, acc);
        });
        m.put("STEP(acc, x)", switch (r.op()) {
            case SUM, MEAN -> "((acc) + (x))";
            case PROD -> "((acc) * (x))";
            case MAX -> "rlxMax(acc, x)";
            case MIN -> "rlxMin(acc, x)";
        });
        if ((r.op() == ReduceKind.SUM || r.op() == ReduceKind.MEAN) && t.isFloat()) {
            m.put("COMPENSATED", "1"); // Kahan: long f32 sums stay within the reference's tolerance
        }
        m.put("FINISH(acc, count)", r.op() == ReduceKind.MEAN ? "((acc) / " + acc + "(count))" : "(acc)");
        if (outputs == 0) {
            return;
        }
        long[] ptrs = {address.applyAsLong(n.output()), address.applyAsLong(n.inputs().get(0))};
        if (count < PARALLEL_REDUCE) {
            add("reduce", m, what, ptrs, ints, outputs);
            return;
        }
        m.put("PARALLEL", "1");
        out.add(new Step.Launch(KernelSource.of("reduce", m), what, ptrs, ints, (int) outputs, 1, 1, LOCAL, 1));
    }

    private static String lowest(DType t, String acc) {
        return switch (t) {
            case F32, F16, BF16 -> "__int_as_float(0xff800000)";
            case F64 -> "__longlong_as_double((long long) 0xfff0000000000000ull)";
            case I8 -> "-128";
            case I16 -> "-32768";
            case I32 -> "(-2147483647 - 1)";
            case I64 -> "((i64) (1ull << 63))";
            default -> acc + "(0)";
        };
    }

    private static String highest(DType t, String acc) {
        return switch (t) {
            case F32, F16, BF16 -> "__int_as_float(0x7f800000)";
            case F64 -> "__longlong_as_double(0x7ff0000000000000ll)";
            case I8 -> "127";
            case I16 -> "32767";
            case I32 -> "2147483647";
            case I64 -> "((i64) 9223372036854775807l)";
            case U8 -> "255u";
            case U32 -> "4294967295u";
            default -> "1u";
        };
    }

    // ---------------------------------------------------------------- along one axis

    private void alongAxis(Node n, int axis, String what, String mode, boolean exclusive, boolean reverse) {
        Shape in = n.inputs().get(0).shape();
        int len = in.dim(axis);
        int inner = (int) in.elementCount(axis + 1, in.rank());
        long lines = in.elementCount(0, axis) * inner;
        Map<String, String> m = new HashMap<>();
        CudaTypes.define(m, "A", in.dtype());
        CudaTypes.define(m, "OUT", n.shape().dtype());
        m.put("ACC", CudaTypes.accumulator(in.dtype()));
        m.put(mode, "1");
        if (in.dtype().isFloat()) {
            m.put("COMPENSATED", "1");
        }
        if (exclusive) {
            m.put("EXCLUSIVE", "1");
        }
        m.put("REVERSE_INDEX(j, len)", reverse ? "((len) - 1 - (j))" : "(j)");
        if (len == 0 || lines == 0) {
            return;
        }
        add("axis", m, what, new long[] {address.applyAsLong(n.output()), address.applyAsLong(n.inputs().get(0))},
                new int[] {(int) lines, len, inner}, lines);
    }

    // ---------------------------------------------------------------- convolution and pooling

    /** The spatial dims of {@code s} (after batch and channels), padded to 3 with 1s. */
    private static int[] spatial3(Shape s) {
        int[] r = {1, 1, 1};
        for (int i = 2; i < s.rank(); i++) {
            r[i - 2] = s.dim(i);
        }
        return r;
    }

    private static int[] padded3(List<Integer> v, int from, int count, int fill) {
        int[] r = {fill, fill, fill};
        for (int i = 0; i < count; i++) {
            r[i] = v.get(from + i);
        }
        return r;
    }

    private void conv(Node n, List<Integer> strides, List<Integer> pads, List<Integer> dilations, int groups,
                      boolean transposed, String what) {
        Shape x = n.inputs().get(0).shape();
        Shape w = n.inputs().get(1).shape();
        Shape o = n.shape();
        int sr = strides.size();
        int[] ints = new int[24];
        ints[0] = (int) o.elementCount();
        ints[1] = x.dim(0);
        ints[2] = x.dim(1);
        ints[3] = o.dim(1);
        ints[4] = groups;
        ints[5] = n.inputs().size() == 3 ? 1 : 0;
        System.arraycopy(spatial3(x), 0, ints, 6, 3);
        System.arraycopy(spatial3(o), 0, ints, 9, 3);
        System.arraycopy(spatial3(w), 0, ints, 12, 3);
        System.arraycopy(padded3(strides, 0, sr, 1), 0, ints, 15, 3);
        System.arraycopy(padded3(pads, 0, sr, 0), 0, ints, 18, 3);
        System.arraycopy(padded3(dilations, 0, sr, 1), 0, ints, 21, 3);
        Map<String, String> m = new HashMap<>();
        CudaTypes.define(m, "A", x.dtype());
        CudaTypes.define(m, "OUT", o.dtype());
        m.put("ACC", CudaTypes.accumulator(x.dtype()));
        if (transposed) {
            m.put("TRANSPOSED", "1");
        }
        long[] ptrs = new long[4];
        ptrs[0] = address.applyAsLong(n.output());
        for (int i = 0; i < n.inputs().size(); i++) {
            ptrs[1 + i] = address.applyAsLong(n.inputs().get(i));
        }
        add("conv", m, what, ptrs, ints, o.elementCount());
    }

    private void pool(Node n, Op.Pool p, String what) {
        Shape x = n.inputs().get(0).shape();
        Shape o = n.shape();
        int sr = p.kernel().size();
        int[] ints = new int[23];
        ints[0] = (int) o.elementCount();
        ints[1] = x.dim(0) * x.dim(1);
        System.arraycopy(spatial3(x), 0, ints, 2, 3);
        System.arraycopy(spatial3(o), 0, ints, 5, 3);
        System.arraycopy(padded3(p.kernel(), 0, sr, 1), 0, ints, 8, 3);
        System.arraycopy(padded3(p.strides(), 0, sr, 1), 0, ints, 11, 3);
        System.arraycopy(padded3(p.pads(), 0, sr, 0), 0, ints, 14, 3);
        System.arraycopy(padded3(p.pads(), sr, sr, 0), 0, ints, 17, 3);
        System.arraycopy(padded3(p.dilations(), 0, sr, 1), 0, ints, 20, 3);
        Map<String, String> m = new HashMap<>();
        CudaTypes.define(m, "A", x.dtype());
        CudaTypes.define(m, "OUT", o.dtype());
        m.put("ACC", CudaTypes.accumulator(x.dtype()));
        m.put(p.op() == Op.Pool.Kind.MAX ? "MAXPOOL" : "AVGPOOL", "1");
        if (p.countIncludePad()) {
            m.put("COUNT_PAD", "1");
        }
        add("pool", m, what, new long[] {address.applyAsLong(n.output()), address.applyAsLong(n.inputs().get(0))},
                ints, o.elementCount());
    }

    // ---------------------------------------------------------------- top-k, scatter-add, gather

    private void topK(Node n, Op.TopK t, String what) {
        Shape in = n.inputs().get(0).shape();
        int len = in.dim(t.axis());
        int inner = (int) in.elementCount(t.axis() + 1, in.rank());
        long lines = in.elementCount(0, t.axis()) * inner;
        if (t.k() == 0 || lines == 0) {
            return;
        }
        Map<String, String> m = new HashMap<>();
        CudaTypes.define(m, "A", in.dtype());
        if (t.largest()) {
            m.put("LARGEST", "1");
        }
        add("topk", m, what, new long[] {address.applyAsLong(n.outputs().get(0)),
                address.applyAsLong(n.outputs().get(1)), address.applyAsLong(n.inputs().get(0))},
                new int[] {(int) lines, len, inner, t.k()}, lines);
    }

    private void scatterAdd(Node n, Op.ScatterAdd sa, String what) {
        Shape data = n.inputs().get(0).shape();
        Shape idx = n.inputs().get(1).shape();
        int[] ints = new int[19];
        ints[0] = (int) data.elementCount();
        ints[1] = data.rank();
        ints[2] = sa.axis();
        for (int d = 0; d < data.rank(); d++) {
            ints[3 + d] = data.dim(d);
            ints[11 + d] = idx.dim(d);
        }
        Map<String, String> m = new HashMap<>();
        CudaTypes.define(m, "A", data.dtype());
        CudaTypes.define(m, "OUT", data.dtype());
        CudaTypes.define(m, "I", idx.dtype());
        m.put("ACC", CudaTypes.accumulator(data.dtype()));
        long[] ptrs = new long[4];
        ptrs[0] = address.applyAsLong(n.output());
        for (int i = 0; i < 3; i++) {
            ptrs[1 + i] = address.applyAsLong(n.inputs().get(i));
        }
        add("scatter", m, what, ptrs, ints, data.elementCount());
    }

    private void gather(Node n, Op.Gather g, String what) {
        Shape data = n.inputs().get(0).shape();
        Shape idx = n.inputs().get(1).shape();
        long outputs = n.shape().elementCount();
        if (outputs == 0) {
            return;
        }
        int inner = (int) data.elementCount(g.axis() + 1, data.rank());
        int[] ints = {(int) outputs, (int) idx.elementCount(), inner, data.dim(g.axis())};
        Map<String, String> m = new HashMap<>();
        m.put("T", CudaTypes.rawType(data.dtype().byteSize()));
        CudaTypes.define(m, "I", idx.dtype());
        add("gather", m, what, new long[] {address.applyAsLong(n.output()), address.applyAsLong(n.inputs().get(0)),
                address.applyAsLong(n.inputs().get(1))}, ints, outputs);
    }

    // ---------------------------------------------------------------- helpers

    /** A 1-d launch of {@code threads} threads (blocks of LOCAL); none for no threads. */
    private void add(String file, Map<String, String> macros, String what, long[] ptrs, int[] ints, long threads) {
        if (threads == 0) {
            return;
        }
        if (threads > Integer.MAX_VALUE) {
            throw new CompileException("CUDA: " + what + " has more than 2^31 elements");
        }
        int blocks = (int) ((threads + LOCAL - 1) / LOCAL);
        out.add(new Step.Launch(KernelSource.of(file, macros), what, ptrs, ints, blocks, 1, 1, LOCAL, 1));
    }

    static int[] contiguous(Shape s) {
        return toInts(s.strides());
    }

    private static int[] toInts(long[] a) {
        int[] r = new int[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = (int) a[i];
        }
        return r;
    }
}
