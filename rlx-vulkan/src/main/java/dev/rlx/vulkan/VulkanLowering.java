package dev.rlx.vulkan;

import dev.rlx.ir.DType;
import dev.rlx.ir.HeadLayout;
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
import java.util.function.Function;

/**
 * Turns each node of a planned graph into compute dispatches over the values' device locations: element-wise ops
 * into elementwise.comp, movement into strided copies (copy.comp), matmul, reductions and gather into their
 * shaders. Views (reshapes, contiguous slices the planner aliased) take none.
 */
final class VulkanLowering {
    /** Highest rank the index arithmetic of the shaders takes. */
    static final int MAX_RANK = 8;
    private static final int LOCAL = 128;
    /** Reductions of at least this many elements per output take a workgroup per output (reduce.comp). */
    private static final int PARALLEL_REDUCE = 2048;

    private final Pipelines pipelines;
    private final Function<Value, Loc> loc;
    private final List<Dispatch> out = new ArrayList<>();
    private final Loc runCounter;
    private final List<RngSite> rngSites = new ArrayList<>();

    /** {@code runCounter}: 8 bytes counting the executable's runs, for RNG streams that advance across runs. */
    VulkanLowering(Pipelines pipelines, Function<Value, Loc> loc, Loc runCounter) {
        this.pipelines = pipelines;
        this.loc = loc;
        this.runCounter = runCounter;
    }

    /** The RNG dispatches lowered so far. */
    List<RngSite> rngSites() {
        return rngSites;
    }

    List<Dispatch> dispatches() {
        return out;
    }

    void lower(Node n) {
        String what = "node %" + n.id() + " " + n.op().label();
        switch (n.op()) {
            case Op.Input i -> { }
            case Op.Param p -> { }
            case Op.Constant c -> { }
            case Op.Unary u -> elementwise(n, what, ElementwiseExpressions.unary(u.op(), n.inputs().get(0).dtype()));
            case Op.Binary b -> elementwise(n, what, ElementwiseExpressions.binary(b.op()));
            case Op.Compare c -> elementwise(n, what, ElementwiseExpressions.compare(c.op()));
            case Op.Where w -> elementwise(n, what, ElementwiseExpressions.where());
            case Op.Cast c -> elementwise(n, what, ElementwiseExpressions.cast(n.inputs().get(0).dtype(), c.to()));
            case Op.Fused f -> fused(n, f, what);
            case Op.Reshape r -> copy(what, n.inputs().get(0), n.output(), new int[] {(int) n.shape().elementCount()},
                    new int[] {1}, new int[] {1}, 0, 0);
            case Op.Transpose t -> transpose(n, t, what);
            case Op.Slice s -> slice(n, s, what);
            case Op.Expand e -> expand(n, what);
            case Op.Concat c -> concat(n, c, what);
            case Op.MatMul m -> matmul(n, m.transA(), m.transB(), null, what);
            case Op.FusedMatMul f -> matmul(n, f.transA(), f.transB(), f.epilogue(), what);
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
            case Op.Softmax sm -> rowNorm(n, sm.axis(), false, "SOFTMAX", 0f, what);
            case Op.LogSoftmax sm -> rowNorm(n, sm.axis(), false, "LOG_SOFTMAX", 0f, what);
            case Op.LayerNorm ln -> rowNorm(n, ln.axis(), true, "LAYER_NORM", ln.eps(), what);
            case Op.RmsNorm rn -> rowNorm(n, rn.axis(), true, "RMS_NORM", rn.eps(), what);
            case Op.AddNorm an -> rowNorm(n, an.axis(), true, an.rms() ? "RMS_NORM" : "LAYER_NORM", an.eps(), what);
            case Op.GroupNorm gn -> rowNorm(n, 1, true, "GROUP_NORM", gn.eps(), what);
            case Op.Attention a -> attention(n, a, what);
            case Op.RngNormal r -> rng(n, true, r.mean(), r.scale(), r.seed(), r.hasSeed(), r.key(), what);
            case Op.RngUniform r -> rng(n, false, r.low(), r.high(), r.seed(), r.hasSeed(), r.key(), what);
            default -> throw new CompileException("Vulkan: no kernel for " + what + " (it should have been refused)");
        }
    }

    // ---------------------------------------------------------------- element-wise

    private void elementwise(Node n, String what, String expr) {
        Shape o = n.shape();
        int rank = o.rank();
        Map<String, String> m = new HashMap<>();
        m.put("ARITY", Integer.toString(n.inputs().size()));
        m.put("EXPR", expr);
        ShaderTypes.define(m, "OUT", o.dtype());
        String[] names = {"A", "B", "C"};
        int[] ints = new int[34];
        ints[0] = (int) o.elementCount();
        ints[1] = rank;
        for (int d = 0; d < rank; d++) {
            ints[2 + d] = o.dim(d);
        }
        long[] ptrs = new long[4];
        ptrs[0] = loc.apply(n.output()).address();
        List<Loc> reads = new ArrayList<>();
        for (int k = 0; k < n.inputs().size(); k++) {
            Value v = n.inputs().get(k);
            ShaderTypes.define(m, names[k], v.dtype());
            int[] st = broadcastStrides(v.shape(), o);
            System.arraycopy(st, 0, ints, 10 + 8 * k, rank);
            Loc l = loc.apply(v);
            ptrs[1 + k] = l.address();
            reads.add(l);
        }
        for (int k = n.inputs().size(); k < 3; k++) {
            ShaderTypes.define(m, names[k], o.dtype());
        }
        add("elementwise", m, what, ptrs, ints, o.elementCount(), reads, n.output());
    }

    /** Operands a Fused program may have: ptr[0] is the result, ptr[1..7] the operands. */
    static final int MAX_FUSED_INPUTS = 7;

    /** A Fused program as one generated shader: each step's expression in a scope where a and b are its operands. */
    private void fused(Node n, Op.Fused f, String what) {
        Shape o = n.shape();
        int rank = o.rank();
        int inputs = n.inputs().size();
        DType t = o.dtype();
        StringBuilder body = new StringBuilder();
        for (int k = 0; k < inputs; k++) {
            body.append("A_C v").append(k).append(" = A_LOAD(BUF(A_S, ").append(1 + k).append(").v[off[").append(k)
                    .append("]]); ");
        }
        Map<String, String> m = new HashMap<>();
        ShaderTypes.define(m, "A", t);
        m.put("INPUTS", Integer.toString(inputs));
        m.put("FUSED_BODY", body.append(programSteps(f.program(), t, inputs)).toString());
        m.put("FUSED_RESULT", "v" + (inputs + f.program().steps().size() - 1));
        int[] ints = new int[10 + 8 * inputs];
        ints[0] = (int) o.elementCount();
        ints[1] = rank;
        for (int d = 0; d < rank; d++) {
            ints[2 + d] = o.dim(d);
        }
        long[] ptrs = new long[1 + inputs];
        ptrs[0] = loc.apply(n.output()).address();
        List<Loc> reads = new ArrayList<>();
        for (int k = 0; k < inputs; k++) {
            Value in = n.inputs().get(k);
            System.arraycopy(broadcastStrides(in.shape(), o), 0, ints, 10 + 8 * k, rank);
            Loc l = loc.apply(in);
            ptrs[1 + k] = l.address();
            reads.add(l);
        }
        add("fused", m, what, ptrs, ints, o.elementCount(), reads, n.output());
    }

    /**
     * GLSL statements computing each step of {@code program} into {@code v<first>, v<first+1>, ...} from the
     * earlier {@code v}s, in type {@code A_C}: the body of fused.comp and of matmul.comp's epilogue.
     */
    private static String programSteps(dev.rlx.ir.ElementwiseProgram program, DType t, int first) {
        StringBuilder body = new StringBuilder();
        int v = first;
        for (dev.rlx.ir.ElementwiseProgram.Step step : program.steps()) {
            String expr = step.isUnary() ? ElementwiseExpressions.unary(step.unary(), t)
                    : ElementwiseExpressions.binary(step.binary());
            body.append("A_C v").append(v).append("; { A_C a = v").append(step.a()).append("; ");
            if (!step.isUnary()) {
                body.append("A_C b = v").append(step.b()).append("; ");
            }
            body.append("v").append(v).append(" = A_C(").append(expr).append("); } ");
            v++;
        }
        return body.toString();
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
        if (count == 0) {
            return;
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
        Loc src = loc.apply(in);
        Map<String, String> m = Map.of("T", ShaderTypes.rawType(in.dtype().byteSize()));
        add("copy", m, what, new long[] {loc.apply(outValue).address(), src.address()}, ints, count, List.of(src),
                outValue);
    }

    // ---------------------------------------------------------------- matmul

    /**
     * A (batched, broadcast, transposed-in-place) matrix product; with an {@code epilogue} (FusedMatMul) the
     * element-wise program runs on each product element and its broadcast extra operands before the store.
     */
    private void matmul(Node n, boolean transA, boolean transB, dev.rlx.ir.ElementwiseProgram epilogue,
                        String what) {
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
        } else if (transA) {
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
        } else if (transB) {
            nDim = b.dim(br - 2);
            sbk = 1;
            sbn = (int) bs[br - 2];
        } else {
            nDim = b.dim(br - 1);
            sbk = (int) bs[br - 2];
            sbn = 1;
        }
        Shape o = n.shape();
        int batchRank = Math.max(ar, br) - 2;
        batchRank = Math.max(batchRank, 0);
        if (batchRank > 6) {
            throw new CompileException("Vulkan: " + what + " has more than 6 batch dims");
        }
        int extras = n.inputs().size() - 2;
        int[] ints = new int[epilogue == null ? 28 : 37 + 8 * extras];
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
        Map<String, String> m = new HashMap<>();
        ShaderTypes.define(m, "A", a.dtype());
        ShaderTypes.define(m, "OUT", o.dtype());
        m.put("ACC", accumulator(a.dtype()));
        List<Loc> reads = new ArrayList<>();
        for (Value v : n.inputs()) {
            reads.add(loc.apply(v));
        }
        long[] ptrs = new long[3 + extras];
        ptrs[0] = loc.apply(n.output()).address();
        for (int k = 0; k < reads.size(); k++) {
            ptrs[1 + k] = reads.get(k).address();
        }
        if (epilogue != null) {
            StringBuilder body = new StringBuilder();
            for (int k = 0; k < extras; k++) {
                body.append("A_C v").append(1 + k).append(" = A_LOAD(BUF(A_S, ").append(3 + k).append(").v[off[")
                        .append(k).append("]]); ");
                System.arraycopy(broadcastStrides(n.inputs().get(2 + k).shape(), o), 0, ints, 37 + 8 * k, o.rank());
            }
            ints[28] = o.rank();
            for (int d = 0; d < o.rank(); d++) {
                ints[29 + d] = o.dim(d);
            }
            m.put("EPILOGUE", "1");
            m.put("EXTRAS", Integer.toString(extras));
            m.put("EPILOGUE_BODY", body.append(programSteps(epilogue, o.dtype(), 1 + extras)).toString());
            m.put("EPILOGUE_RESULT", "v" + (extras + epilogue.steps().size()));
        }
        long pipeline = pipelines.get("matmul", m, what);
        out.add(new Dispatch(pipeline, what, ptrs, ints, (nDim + 15) / 16, (mDim + 15) / 16, batches, reads,
                List.of(loc.apply(n.output()))));
    }

    private static String accumulator(DType t) {
        return switch (t) {
            case F32, F16, BF16 -> "float";
            default -> ShaderTypes.of(t).compute();
        };
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
        String acc = accumulator(t);
        Map<String, String> m = new HashMap<>();
        ShaderTypes.define(m, "A", t);
        ShaderTypes.define(m, "OUT", n.shape().dtype());
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
        if (r.op() == ReduceKind.SUM || r.op() == ReduceKind.MEAN) {
            if (t.isFloat()) {
                m.put("COMPENSATED", "1"); // Kahan: long f32 sums stay within the reference's tolerance
            }
        }
        m.put("FINISH(acc, count)", r.op() == ReduceKind.MEAN ? "((acc) / " + acc + "(count))" : "(acc)");
        if (outputs == 0) {
            return;
        }
        Loc src = loc.apply(n.inputs().get(0));
        long[] ptrs = {loc.apply(n.output()).address(), src.address()};
        if (count < PARALLEL_REDUCE) {
            add("reduce", m, what, ptrs, ints, outputs, List.of(src), n.output());
            return;
        }
        m.put("PARALLEL", "1");
        int[] g = Dispatch.groups(outputs, 1);
        out.add(new Dispatch(pipelines.get("reduce", m, what), what, ptrs, ints, g[0], g[1], 1, List.of(src),
                List.of(loc.apply(n.output()))));
    }

    private static String lowest(DType t, String acc) {
        return switch (t) {
            case F32, F16, BF16 -> "uintBitsToFloat(0xff800000u)";
            case F64 -> "double(uintBitsToFloat(0xff800000u))";
            case I8 -> "-128";
            case I16 -> "-32768";
            case I32 -> "(-2147483647 - 1)";
            case I64 -> "(int64_t(1) << 63)";
            default -> acc + "(0)";
        };
    }

    private static String highest(DType t, String acc) {
        return switch (t) {
            case F32, F16, BF16 -> "uintBitsToFloat(0x7f800000u)";
            case F64 -> "double(uintBitsToFloat(0x7f800000u))";
            case I8 -> "127";
            case I16 -> "32767";
            case I32 -> "2147483647";
            case I64 -> "(~(int64_t(1) << 63))";
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
        ShaderTypes.define(m, "A", in.dtype());
        ShaderTypes.define(m, "OUT", n.shape().dtype());
        m.put("ACC", accumulator(in.dtype()));
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
        Loc src = loc.apply(n.inputs().get(0));
        add("axis", m, what, new long[] {loc.apply(n.output()).address(), src.address()},
                new int[] {(int) lines, len, inner}, lines, List.of(src), n.output());
    }

    // ---------------------------------------------------------------- convolution and pooling

    /** The spatial dims of {@code s} (after batch and channels), padded to 3 with 1s. */
    private static int[] spatial3(Shape s) {
        int[] out = {1, 1, 1};
        for (int i = 2; i < s.rank(); i++) {
            out[i - 2] = s.dim(i);
        }
        return out;
    }

    private static int[] padded3(List<Integer> v, int from, int count, int fill) {
        int[] out = {fill, fill, fill};
        for (int i = 0; i < count; i++) {
            out[i] = v.get(from + i);
        }
        return out;
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
        ShaderTypes.define(m, "A", x.dtype());
        ShaderTypes.define(m, "OUT", o.dtype());
        m.put("ACC", accumulator(x.dtype()));
        if (transposed) {
            m.put("TRANSPOSED", "1");
        }
        List<Loc> reads = new ArrayList<>();
        long[] ptrs = new long[4];
        ptrs[0] = loc.apply(n.output()).address();
        for (int i = 0; i < n.inputs().size(); i++) {
            Loc l = loc.apply(n.inputs().get(i));
            reads.add(l);
            ptrs[1 + i] = l.address();
        }
        add("conv", m, what, ptrs, ints, o.elementCount(), reads, n.output());
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
        ShaderTypes.define(m, "A", x.dtype());
        ShaderTypes.define(m, "OUT", o.dtype());
        m.put("ACC", accumulator(x.dtype()));
        m.put(p.op() == Op.Pool.Kind.MAX ? "MAXPOOL" : "AVGPOOL", "1");
        if (p.countIncludePad()) {
            m.put("COUNT_PAD", "1");
        }
        Loc src = loc.apply(n.inputs().get(0));
        add("pool", m, what, new long[] {loc.apply(n.output()).address(), src.address()}, ints, o.elementCount(),
                List.of(src), n.output());
    }

    // ---------------------------------------------------------------- top-k

    private void topK(Node n, Op.TopK t, String what) {
        Shape in = n.inputs().get(0).shape();
        int len = in.dim(t.axis());
        int inner = (int) in.elementCount(t.axis() + 1, in.rank());
        long lines = in.elementCount(0, t.axis()) * inner;
        if (t.k() == 0 || lines == 0) {
            return;
        }
        Map<String, String> m = new HashMap<>();
        ShaderTypes.define(m, "A", in.dtype());
        if (t.largest()) {
            m.put("LARGEST", "1");
        }
        Loc src = loc.apply(n.inputs().get(0));
        Loc values = loc.apply(n.outputs().get(0));
        Loc indices = loc.apply(n.outputs().get(1));
        int[] g = Dispatch.groups(lines, LOCAL);
        out.add(new Dispatch(pipelines.get("topk", m, what), what,
                new long[] {values.address(), indices.address(), src.address()},
                new int[] {(int) lines, len, inner, t.k()}, g[0], g[1], 1, List.of(src), List.of(values, indices)));
    }

    // ---------------------------------------------------------------- scatter-add

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
        ShaderTypes.define(m, "A", data.dtype());
        ShaderTypes.define(m, "OUT", data.dtype());
        ShaderTypes.define(m, "I", idx.dtype());
        m.put("ACC", accumulator(data.dtype()));
        List<Loc> reads = new ArrayList<>();
        long[] ptrs = new long[4];
        ptrs[0] = loc.apply(n.output()).address();
        for (int i = 0; i < 3; i++) {
            Loc l = loc.apply(n.inputs().get(i));
            reads.add(l);
            ptrs[1 + i] = l.address();
        }
        add("scatter", m, what, ptrs, ints, data.elementCount(), reads, n.output());
    }

    // ---------------------------------------------------------------- gather

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
        m.put("T", ShaderTypes.rawType(data.dtype().byteSize()));
        ShaderTypes.define(m, "I", idx.dtype());
        Loc ld = loc.apply(n.inputs().get(0));
        Loc li = loc.apply(n.inputs().get(1));
        add("gather", m, what, new long[] {loc.apply(n.output()).address(), ld.address(), li.address()}, ints,
                outputs, List.of(ld, li), n.output());
    }

    // ---------------------------------------------------------------- row-wise composites

    /**
     * Softmax and log-softmax along {@code axis} ({@code trailing} false), layer and RMS norm over the dims from
     * {@code axis} on ({@code trailing} true): rownorm.comp, a workgroup per line. Group norm is the trailing
     * case from axis 1 with one line per (sample, group).
     */
    private void rowNorm(Node n, int axis, boolean trailing, String mode, float eps, String what) {
        Shape in = n.inputs().get(0).shape();
        int groups = n.op() instanceof Op.GroupNorm gn ? gn.numGroups() : 1;
        long len = (trailing ? in.elementCount(axis, in.rank()) : in.dim(axis)) / groups;
        long inner = trailing ? 1 : in.elementCount(axis + 1, in.rank());
        long lines = in.elementCount(0, axis) * inner * groups;
        if (len == 0 || lines == 0) {
            return;
        }
        DType t = in.dtype();
        Map<String, String> m = new HashMap<>();
        ShaderTypes.define(m, "A", t);
        m.put("ACC", accumulator(t));
        m.put("EXP_ACC(x)", t == DType.F64 ? "rlxExpD(x)" : "exp(x)");
        m.put("LOG_ACC(x)", t == DType.F64 ? "rlxLogD(x)" : "log(x)");
        m.put(mode, "1");
        // AddNorm: inputs (x, residual, gamma[, beta]), outputs (sum, normalised); the residual goes to ptr[4]
        boolean add = n.op() instanceof Op.AddNorm;
        List<Value> ins = new ArrayList<>(n.inputs());
        Value residual = add ? ins.remove(1) : null;
        Loc normalised = loc.apply(n.outputs().get(add ? 1 : 0));
        List<Loc> reads = new ArrayList<>();
        long[] ptrs = new long[add ? 6 : 4];
        ptrs[0] = normalised.address();
        for (int i = 0; i < ins.size(); i++) {
            Loc l = loc.apply(ins.get(i));
            reads.add(l);
            ptrs[1 + i] = l.address();
        }
        List<Loc> writes = new ArrayList<>(List.of(normalised));
        if (add) {
            m.put("ADD_RESIDUAL", "1");
            Loc r = loc.apply(residual);
            reads.add(r);
            ptrs[4] = r.address();
            Loc sum = loc.apply(n.outputs().get(0));
            writes.add(sum);
            ptrs[5] = sum.address();
        }
        int[] ints = {(int) lines, (int) len, (int) inner, ins.size() == 3 ? 1 : 0, Float.floatToRawIntBits(eps),
                groups, (int) in.elementCount(2, in.rank())};
        int[] g = Dispatch.groups(lines, 1);
        out.add(new Dispatch(pipelines.get("rownorm", m, what), what, ptrs, ints, g[0], g[1], 1, reads, writes));
    }

    // ---------------------------------------------------------------- attention

    /** Keys per query row attention.comp holds in shared memory; longer rows are refused (and decomposed). */
    static final int MAX_ATTENTION_KEYS = 2048;

    /** attention.comp: a workgroup per (batch, head, query) row. */
    private void attention(Node n, Op.Attention a, String what) {
        Shape q = n.inputs().get(0).shape();
        Shape k = n.inputs().get(1).shape();
        int batch = q.dim(0);
        int sq = a.layout() == HeadLayout.BHSD && q.rank() == 4 ? q.dim(2) : q.dim(1);
        int sk = a.layout() == HeadLayout.BHSD && k.rank() == 4 ? k.dim(2) : k.dim(1);
        long rows = (long) batch * a.numHeads() * sq;
        if (rows == 0) {
            return;
        }
        int[] ints = new int[26];
        ints[0] = (int) rows;
        ints[1] = sq;
        ints[2] = sk;
        ints[3] = a.numHeads();
        ints[4] = a.numHeads() / a.numKvHeads();
        ints[5] = a.headDim();
        ints[6] = Float.floatToRawIntBits(a.scale());
        ints[7] = Float.floatToRawIntBits(a.softcap());
        ints[8] = switch (a.mask()) {
            case NONE -> 0;
            case CAUSAL -> 1;
            case SLIDING_WINDOW -> 2;
        };
        ints[9] = a.window();
        List<Value> operands = new ArrayList<>(n.inputs().subList(0, 3));
        operands.add(0, n.output());
        for (int o = 0; o < 4; o++) {
            int[] st = headStrides(operands.get(o).shape(), a.layout(), a.headDim());
            int at = o == 0 ? 19 : 7 + 3 * o;
            System.arraycopy(st, 0, ints, at, 3);
        }
        Map<String, String> m = new HashMap<>();
        DType t = q.dtype();
        ShaderTypes.define(m, "A", t);
        m.put("ACC", accumulator(t));
        m.put("EXP_ACC(x)", t == DType.F64 ? "rlxExpD(x)" : "exp(x)");
        List<Loc> reads = new ArrayList<>();
        long[] ptrs = new long[n.inputs().size() + 1];
        ptrs[0] = loc.apply(n.output()).address();
        for (int i = 0; i < n.inputs().size(); i++) {
            Loc l = loc.apply(n.inputs().get(i));
            reads.add(l);
            ptrs[1 + i] = l.address();
        }
        if (n.inputs().size() > 3) {
            Shape mask = n.inputs().get(3).shape();
            boolean keep = mask.dtype() == DType.BOOL;
            m.put(keep ? "MASK_KEEP" : "MASK_ADD", "1");
            if (keep) {
                ShaderTypes.define(m, "M", mask.dtype());
            }
            int[] st = broadcastStrides(mask, Shape.of(mask.dtype(), batch, a.numHeads(), sq, sk));
            System.arraycopy(st, 0, ints, 22, 4);
        }
        int[] g = Dispatch.groups(rows, 1);
        out.add(new Dispatch(pipelines.get("attention", m, what), what, ptrs, ints, g[0], g[1], 1, reads,
                List.of(loc.apply(n.output()))));
    }

    /**
     * Element strides of a head operand along (batch, sequence, head): {@code [B, S, H*D]} and {@code [B, S, H, D]}
     * (BSHD) or {@code [B, H, S, D]} (BHSD); the head's D elements are contiguous in all three.
     */
    private static int[] headStrides(Shape s, HeadLayout layout, int headDim) {
        long[] st = s.strides();
        if (s.rank() == 3) {
            return new int[] {(int) st[0], (int) st[1], headDim};
        }
        return layout == HeadLayout.BHSD ? new int[] {(int) st[0], (int) st[2], (int) st[1]}
                : new int[] {(int) st[0], (int) st[1], (int) st[2]};
    }

    // ---------------------------------------------------------------- random numbers

    /** One invocation per Philox block (rng.comp); the stream words are filled in by {@link RngSite#apply}. */
    private void rng(Node n, boolean normal, float a, float b, long seed, boolean hasSeed, long key, String what) {
        long count = n.shape().elementCount();
        if (count == 0) {
            return;
        }
        if (count > Integer.MAX_VALUE) {
            throw new CompileException("Vulkan: " + what + " has more than 2^31 elements");
        }
        DType t = n.shape().dtype();
        Map<String, String> m = new HashMap<>();
        ShaderTypes.define(m, "OUT", t);
        if (normal) {
            m.put("NORMAL", "1");
        }
        if (t == DType.F64) {
            m.put("F64_OUT", "1");
        } else if (t == DType.F16 || t == DType.BF16) {
            m.put("NARROW_OUT", "1");
        }
        long blocks = (count + 3) / 4;
        int[] ints = {(int) count, (int) blocks, 0, 0, 0, 0, Float.floatToRawIntBits(a), Float.floatToRawIntBits(b)};
        Loc dst = loc.apply(n.output());
        int[] g = Dispatch.groups(blocks, LOCAL);
        Dispatch d = new Dispatch(pipelines.get("rng", m, what), what, new long[] {dst.address(),
                runCounter.address()}, ints, g[0], g[1], 1, List.of(runCounter), List.of(dst));
        out.add(d);
        rngSites.add(new RngSite(d, what, seed, hasSeed, key));
    }

    /** The last dispatch of a graph with RNG ops: advances the run counter (rng.comp with STEP_RUN). */
    void advanceRunCounter() {
        out.add(new Dispatch(pipelines.get("rng", Map.of("STEP_RUN", "1"), "the RNG run counter"),
                "the RNG run counter", new long[] {runCounter.address()}, new int[0], 1, 1, 1, List.of(runCounter),
                List.of(runCounter)));
    }

    // ---------------------------------------------------------------- helpers

    private void add(String shader, Map<String, String> macros, String what, long[] ptrs, int[] ints, long threads,
                     List<Loc> reads, Value written) {
        if (threads == 0) {
            return;
        }
        if (threads > Integer.MAX_VALUE) {
            throw new CompileException("Vulkan: " + what + " has more than 2^31 elements");
        }
        long pipeline = pipelines.get(shader, macros, what);
        int[] g = Dispatch.groups(threads, LOCAL);
        out.add(new Dispatch(pipeline, what, ptrs, ints, g[0], g[1], 1, reads, List.of(loc.apply(written))));
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
