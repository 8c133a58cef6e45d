package dev.rlx.ir;

import static dev.rlx.ir.ShapeRules.arity;
import static dev.rlx.ir.ShapeRules.axis;
import static dev.rlx.ir.ShapeRules.broadcast;
import static dev.rlx.ir.ShapeRules.fail;
import static dev.rlx.ir.ShapeRules.ints;
import static dev.rlx.ir.ShapeRules.list;
import static dev.rlx.ir.ShapeRules.positive;
import static dev.rlx.ir.ShapeRules.requireFloat;
import static dev.rlx.ir.ShapeRules.requireIndex;
import static dev.rlx.ir.ShapeRules.requireNumeric;
import static dev.rlx.ir.ShapeRules.sameDtype;
import static dev.rlx.ir.ShapeRules.storedAxis;

import dev.rlx.ir.quant.BlockFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The op vocabulary: one record per op, holding its attributes with value semantics (so {@code equals}
 * can drive common-subexpression elimination). Each op states its own shape rule in
 * {@link #outputShapes}, which rejects bad operands with a {@link ShapeException} naming the op, the
 * operands and the rule broken.
 *
 * <p>Semantics follow JAX ({@code jax.lax}) and ONNX; each record's Javadoc states them. Axes stored in
 * records are normalised (non-negative); the {@link Graph} builders accept negative axes. Attribute fields
 * use only the types the {@link GraphSerializer} knows: primitives, String, enums, {@link DType},
 * {@link Shape}, {@link Tensor}, {@link Attrs}, {@link Graph} and lists of Integer or Shape.
 */
public sealed interface Op {

    /** The discriminant a backend declares support for. */
    OpKind kind();

    /**
     * Output shapes for operands of the given shapes.
     *
     * @throws ShapeException when the operands break the op's rule
     */
    List<Shape> outputShapes(List<Shape> inputs);

    /** Short name used by the printer and in messages, e.g. {@code matmul}, {@code relu}, {@code reduce_sum}. */
    default String label() {
        return kind().label();
    }

    /**
     * Whether the op is a function of its operands only: passes may fold it, merge equal copies, or drop it
     * when unused. Random-number ops ({@link OpKind#IMPURE}) never are; custom ops are impure unless they
     * declare otherwise.
     */
    default boolean isPure() {
        return !OpKind.IMPURE.contains(kind());
    }

    // ---------------------------------------------------------------- sources

    /** A tensor fed at run time under {@code name}. */
    record Input(String name, Shape shape) implements Op {
        public Input {
            requireName("input", name);
            Objects.requireNonNull(shape, "shape");
        }

        public OpKind kind() { return OpKind.INPUT; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("input", in, 0);
            return List.of(shape);
        }
    }

    /** A weight set once through {@code setParam(name, ...)} and kept across runs. */
    record Param(String name, Shape shape) implements Op {
        public Param {
            requireName("param", name);
            Objects.requireNonNull(shape, "shape");
        }

        public OpKind kind() { return OpKind.PARAM; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("param", in, 0);
            return List.of(shape);
        }
    }

    /** A tensor embedded in the graph. */
    record Constant(Tensor value) implements Op {
        public Constant {
            Objects.requireNonNull(value, "value");
        }

        public OpKind kind() { return OpKind.CONSTANT; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("constant", in, 0);
            return List.of(value.shape());
        }
    }

    // ---------------------------------------------------------------- element-wise

    /** {@code op(x)} per element; the kinds and their domains are listed in {@link UnaryKind}. */
    record Unary(UnaryKind op) implements Op {
        public Unary {
            Objects.requireNonNull(op, "op");
        }

        public OpKind kind() { return OpKind.UNARY; }

        public String label() { return op.label(); }

        public List<Shape> outputShapes(List<Shape> in) {
            arity(op.label(), in, 1);
            if (!op.accepts(in.get(0).dtype())) {
                throw fail(op.label(), "not defined on %s (accepts %s types)", in.get(0), op.domain().name().toLowerCase());
            }
            return List.of(in.get(0));
        }
    }

    /** {@code op(a, b)} per element with NumPy broadcasting; equal dtypes (see {@link BinaryKind}). */
    record Binary(BinaryKind op) implements Op {
        public Binary {
            Objects.requireNonNull(op, "op");
        }

        public OpKind kind() { return OpKind.BINARY; }

        public String label() { return op.label(); }

        public List<Shape> outputShapes(List<Shape> in) {
            arity(op.label(), in, 2);
            sameDtype(op.label(), in.get(0), in.get(1));
            if (!op.accepts(in.get(0).dtype())) {
                throw fail(op.label(), "not defined on %s (accepts %s types)", in.get(0), op.domain().name().toLowerCase());
            }
            return List.of(Shape.of(in.get(0).dtype(), broadcast(op.label(), in.get(0), in.get(1))));
        }
    }

    /** {@code op(a, b)} per element with broadcasting, giving BOOL; operands of equal dtype. */
    record Compare(CompareKind op) implements Op {
        public Compare {
            Objects.requireNonNull(op, "op");
        }

        public OpKind kind() { return OpKind.COMPARE; }

        public String label() { return op.label(); }

        public List<Shape> outputShapes(List<Shape> in) {
            arity(op.label(), in, 2);
            sameDtype(op.label(), in.get(0), in.get(1));
            if (in.get(0).dtype().isComplex()) {
                throw fail(op.label(), "complex operands are not ordered: %s", in.get(0));
            }
            return List.of(Shape.of(DType.BOOL, broadcast(op.label(), in.get(0), in.get(1))));
        }
    }

    /** {@code cond ? a : b} per element; inputs (cond BOOL, a, b), all three broadcast together. */
    record Where() implements Op {
        public OpKind kind() { return OpKind.WHERE; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("where", in, 3);
            if (in.get(0).dtype() != DType.BOOL) {
                throw fail("where", "condition must be bool but is %s", in.get(0));
            }
            sameDtype("where", in.get(1), in.get(2));
            return List.of(Shape.of(in.get(1).dtype(), broadcast("where", in.get(0), in.get(1), in.get(2))));
        }
    }

    /**
     * Converts element type. Float to integer truncates toward zero and saturates (NaN gives 0); integer to
     * float rounds to nearest; to F16/BF16 rounds to nearest even; to BOOL is {@code x != 0}; BOOL to number
     * is 0 or 1; real to C64 sets the imaginary part to 0. C64 to a real type is rejected (take the real part
     * explicitly).
     */
    record Cast(DType to) implements Op {
        public Cast {
            Objects.requireNonNull(to, "to");
        }

        public OpKind kind() { return OpKind.CAST; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("cast", in, 1);
            if (in.get(0).dtype().isComplex() && !to.isComplex()) {
                throw fail("cast", "cannot cast complex %s to %s", in.get(0), to.label());
            }
            return List.of(in.get(0).withDtype(to));
        }
    }

    // ---------------------------------------------------------------- linear algebra

    /**
     * {@code numpy.matmul}: {@code [..., M, K] x [..., K, N] -> [..., M, N]} with batch dims broadcast; a
     * rank-1 left operand is a row {@code [1, K]} and a rank-1 right operand a column {@code [K, 1]}, the
     * added dim removed from the result. Numeric, equal dtypes; floats accumulate in at least f32.
     * {@code transA} / {@code transB} read that operand with its last two dims swapped (as if transposed
     * first, without the copy; rank >= 2 only): the transpose-folding pass sets them.
     */
    record MatMul(boolean transA, boolean transB) implements Op {
        /** Plain {@code numpy.matmul}. */
        public MatMul() {
            this(false, false);
        }

        public OpKind kind() { return OpKind.MATMUL; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("matmul", in, 2);
            Shape a = logical("matmul", in.get(0), transA, "transA");
            Shape b = logical("matmul", in.get(1), transB, "transB");
            sameDtype("matmul", a, b);
            requireNumeric("matmul", a, "lhs");
            if (a.dtype().isComplex()) {
                throw fail("matmul", "complex operands are not supported: %s", a);
            }
            if (a.rank() == 0 || b.rank() == 0) {
                throw fail("matmul", "operands must have rank >= 1 but got %s and %s (use mul for scalars)", a, b);
            }
            int[] ad = a.rank() == 1 ? new int[] {1, a.dim(0)} : a.dims();
            int[] bd = b.rank() == 1 ? new int[] {b.dim(0), 1} : b.dims();
            int k1 = ad[ad.length - 1];
            int k2 = bd[bd.length - 2];
            if (k1 != k2) {
                throw fail("matmul", "inner dimensions differ: lhs %s has K=%d but rhs %s has K=%d", a, k1, b, k2);
            }
            int[] batch;
            try {
                batch = broadcast("matmul", Shape.of(a.dtype(), java.util.Arrays.copyOf(ad, ad.length - 2)),
                        Shape.of(b.dtype(), java.util.Arrays.copyOf(bd, bd.length - 2)));
            } catch (ShapeException e) { // name the operands, not just their batch dims
                throw fail("matmul", "batch dims of %s and %s do not broadcast (%s)", a, b,
                        e.getMessage().substring("[matmul] ".length()));
            }
            List<Integer> out = new ArrayList<>(list(batch));
            if (a.rank() > 1) {
                out.add(ad[ad.length - 2]);
            }
            if (b.rank() > 1) {
                out.add(bd[bd.length - 1]);
            }
            return List.of(Shape.of(a.dtype(), out));
        }
    }

    /**
     * {@code x . dequant(w)^T} with the weights kept in ggml's block layout ({@link dev.rlx.ir.quant.WeightFormat}),
     * so a kernel reads about one byte (Q8_0) or half a byte (Q4_0) per weight instead of four: the projections of
     * a quantised LLM. Inputs {@code (x, w)}: {@code x} f32 {@code [..., K]}; {@code w} u8 {@code [N,
     * format.rowBytes(K)]}, row {@code n} the {@code K} weights of output {@code n} as consecutive blocks (a GGUF
     * tensor of dims {@code [K, N]} as stored). Output f32 {@code [..., N]}. {@code K} must be a whole number of
     * the format's blocks.
     */
    record QuantMatMul(dev.rlx.ir.quant.WeightFormat format) implements Op {
        public QuantMatMul {
            Objects.requireNonNull(format, "format");
        }

        public OpKind kind() { return OpKind.QUANT_MATMUL; }

        public List<Shape> outputShapes(List<Shape> in) {
            String op = "quant_matmul";
            arity(op, in, 2);
            Shape x = in.get(0);
            Shape w = in.get(1);
            if (x.dtype() != DType.F32 || x.rank() < 1) {
                throw fail(op, "x must be f32 of rank >= 1 ([..., K]) but is %s", x);
            }
            int k = x.dim(x.rank() - 1);
            long rowBytes = format.rowBytes(k);
            if (rowBytes < 0) {
                throw fail(op, "K = %d (the last dim of x %s) is not a whole number of %s's %d-value blocks", k, x,
                        format, format.blockElems());
            }
            if (w.dtype() != DType.U8 || w.rank() != 2 || w.dim(1) != rowBytes) {
                throw fail(op, "w must be u8 [N, %d] (rows of K = %d %s weights) but is %s", rowBytes, k, format, w);
            }
            int[] out = x.dims();
            out[out.length - 1] = w.dim(0);
            return List.of(Shape.of(DType.F32, out));
        }
    }

    // ---------------------------------------------------------------- reductions

    /**
     * Reduces over {@code axes} (sorted, distinct, normalised); {@code keepDims} keeps them as size 1. See
     * {@link ReduceKind} for the value over zero elements. MEAN needs a float type.
     */
    record Reduce(ReduceKind op, List<Integer> axes, boolean keepDims) implements Op {
        public Reduce {
            Objects.requireNonNull(op, "op");
            axes = List.copyOf(axes);
        }

        public OpKind kind() { return OpKind.REDUCE; }

        public String label() { return "reduce_" + op.label(); }

        public List<Shape> outputShapes(List<Shape> in) {
            arity(label(), in, 1);
            Shape x = in.get(0);
            requireNumeric(label(), x, "operand");
            if (op == ReduceKind.MEAN) {
                requireFloat(label(), x, "operand");
            }
            boolean[] reduced = new boolean[x.rank()];
            int prev = -1;
            for (int a : axes) {
                storedAxis(label(), a, x);
                if (a <= prev) {
                    throw fail(label(), "axes %s must be sorted and distinct", axes);
                }
                prev = a;
                reduced[a] = true;
            }
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < x.rank(); i++) {
                if (!reduced[i]) {
                    out.add(x.dim(i));
                } else if (keepDims) {
                    out.add(1);
                }
            }
            return List.of(Shape.of(x.dtype(), out));
        }
    }

    /**
     * Index (I64) of the largest ({@code ARGMAX}) or smallest ({@code ARGMIN}) element along {@code axis};
     * ties go to the smaller index; NaN counts as the extreme. Numeric operand; the axis must not be empty.
     */
    record ArgReduce(Kind op, int axis, boolean keepDims) implements Op {
        /** Which extreme to find. */
        public enum Kind { ARGMAX, ARGMIN }

        public ArgReduce {
            Objects.requireNonNull(op, "op");
        }

        public OpKind kind() { return OpKind.ARG_REDUCE; }

        public String label() { return op.name().toLowerCase(); }

        public List<Shape> outputShapes(List<Shape> in) {
            arity(label(), in, 1);
            Shape x = in.get(0);
            requireNumeric(label(), x, "operand");
            storedAxis(label(), axis, x);
            if (x.dim(axis) == 0) {
                throw fail(label(), "axis %d of %s is empty", axis, x);
            }
            Shape out = keepDims ? x.withDim(axis, 1) : removeAxis(x, axis);
            return List.of(out.withDtype(DType.I64));
        }
    }

    /** {@code exp(x - max) / sum(exp(x - max))} along {@code axis} (max subtracted for stability); float. */
    record Softmax(int axis) implements Op {
        public OpKind kind() { return OpKind.SOFTMAX; }

        public List<Shape> outputShapes(List<Shape> in) {
            return sameShapeAlongAxis("softmax", in, axis);
        }
    }

    /** {@code x - max - log(sum(exp(x - max)))} along {@code axis}; float. */
    record LogSoftmax(int axis) implements Op {
        public OpKind kind() { return OpKind.LOG_SOFTMAX; }

        public List<Shape> outputShapes(List<Shape> in) {
            return sameShapeAlongAxis("log_softmax", in, axis);
        }
    }

    /**
     * Prefix sums along {@code axis}: inclusive {@code y[i] = sum_{j<=i} x[j]}, exclusive {@code sum_{j<i}}
     * ({@code y[0] = 0}); {@code reverse} sums from the end. Numeric.
     */
    record Cumsum(int axis, boolean exclusive, boolean reverse) implements Op {
        public OpKind kind() { return OpKind.CUMSUM; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("cumsum", in, 1);
            requireNumeric("cumsum", in.get(0), "operand");
            storedAxis("cumsum", axis, in.get(0));
            return List.of(in.get(0));
        }
    }

    /**
     * The {@code k} largest ({@code largest}) or smallest elements along {@code axis}, sorted (descending for
     * largest), ties to the smaller index. Two outputs: values (operand dtype) and their indices (I64).
     */
    record TopK(int k, int axis, boolean largest) implements Op {
        public OpKind kind() { return OpKind.TOP_K; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("top_k", in, 1);
            Shape x = in.get(0);
            requireNumeric("top_k", x, "operand");
            storedAxis("top_k", axis, x);
            if (k < 0 || k > x.dim(axis)) {
                throw fail("top_k", "k=%d must be in [0, %d] (axis %d of %s)", k, x.dim(axis), axis, x);
            }
            Shape v = x.withDim(axis, k);
            return List.of(v, v.withDtype(DType.I64));
        }
    }

    // ---------------------------------------------------------------- normalisation

    /**
     * Layer normalisation over axes {@code [axis, rank)}: {@code (x - mean) / sqrt(var + eps) * gamma + beta}
     * with the population variance. Inputs (x, gamma[, beta]); gamma and beta have the normalised dims.
     */
    record LayerNorm(int axis, float eps) implements Op {
        public LayerNorm {
            requireEps("layer_norm", eps);
        }

        public OpKind kind() { return OpKind.LAYER_NORM; }

        public List<Shape> outputShapes(List<Shape> in) {
            return normShapes("layer_norm", in, axis);
        }
    }

    /**
     * RMS normalisation over axes {@code [axis, rank)}: {@code x / sqrt(mean(x^2) + eps) * gamma [+ beta]}.
     * Inputs (x, gamma[, beta]) as {@link LayerNorm}.
     */
    record RmsNorm(int axis, float eps) implements Op {
        public RmsNorm {
            requireEps("rms_norm", eps);
        }

        public OpKind kind() { return OpKind.RMS_NORM; }

        public List<Shape> outputShapes(List<Shape> in) {
            return normShapes("rms_norm", in, axis);
        }
    }

    /**
     * Group normalisation of {@code x [N, C, ...]}: channels split into {@code numGroups} groups, each
     * normalised over its channels and all spatial positions, then {@code * gamma[c] + beta[c]}.
     * Inputs (x, gamma[C], beta[C]).
     */
    record GroupNorm(int numGroups, float eps) implements Op {
        public GroupNorm {
            requireEps("group_norm", eps);
            positive("group_norm", "numGroups", numGroups);
        }

        public OpKind kind() { return OpKind.GROUP_NORM; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("group_norm", in, 3);
            Shape x = in.get(0);
            requireFloat("group_norm", x, "x");
            if (x.rank() < 2) {
                throw fail("group_norm", "x must be [N, C, ...] but is %s", x);
            }
            if (x.dim(1) % numGroups != 0) {
                throw fail("group_norm", "channels %d of %s are not divisible by numGroups %d", x.dim(1), x, numGroups);
            }
            Shape c = Shape.of(x.dtype(), x.dim(1));
            for (int i = 1; i < 3; i++) {
                if (!in.get(i).equals(c)) {
                    throw fail("group_norm", "%s must be %s but is %s", i == 1 ? "gamma" : "beta", c, in.get(i));
                }
            }
            return List.of(x);
        }
    }

    // ---------------------------------------------------------------- movement

    /** Same elements in row-major order with new dims (a view when the planner can alias it). */
    record Reshape(List<Integer> dims) implements Op {
        public Reshape {
            dims = List.copyOf(dims);
        }

        public OpKind kind() { return OpKind.RESHAPE; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("reshape", in, 1);
            Shape out = Shape.of(in.get(0).dtype(), dims);
            if (out.elementCount() != in.get(0).elementCount()) {
                throw fail("reshape", "cannot reshape %s (%d elements) to %s (%d elements)", in.get(0),
                        in.get(0).elementCount(), out, out.elementCount());
            }
            return List.of(out);
        }
    }

    /** {@code out.dim(i) = in.dim(perm[i])}, data permuted accordingly ({@code numpy.transpose}). */
    record Transpose(List<Integer> perm) implements Op {
        public Transpose {
            perm = List.copyOf(perm);
        }

        public OpKind kind() { return OpKind.TRANSPOSE; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("transpose", in, 1);
            Shape x = in.get(0);
            if (perm.size() != x.rank()) {
                throw fail("transpose", "permutation %s has %d entries but %s has rank %d", perm, perm.size(), x, x.rank());
            }
            boolean[] seen = new boolean[x.rank()];
            int[] out = new int[x.rank()];
            for (int i = 0; i < perm.size(); i++) {
                int p = perm.get(i);
                if (p < 0 || p >= x.rank() || seen[p]) {
                    throw fail("transpose", "%s is not a permutation of 0..%d", perm, x.rank() - 1);
                }
                seen[p] = true;
                out[i] = x.dim(p);
            }
            return List.of(Shape.of(x.dtype(), out));
        }
    }

    /**
     * {@code length} elements along {@code axis} starting at {@code start} with stride {@code step} (which
     * may be negative): element i is {@code start + i*step}, all of which must lie inside the axis.
     */
    record Slice(int axis, int start, int length, int step) implements Op {
        public Slice {
            if (step == 0) {
                throw fail("slice", "step must not be 0");
            }
            ShapeRules.nonNegative("slice", "length", length);
        }

        public OpKind kind() { return OpKind.SLICE; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("slice", in, 1);
            Shape x = in.get(0);
            storedAxis("slice", axis, x);
            int n = x.dim(axis);
            long last = start + (long) (length - 1) * step;
            if (length > 0 && (start < 0 || start >= n || last < 0 || last >= n)) {
                throw fail("slice", "start %d, length %d, step %d reaches index %d, outside axis %d of size %d in %s",
                        start, length, step, last, axis, n, x);
            }
            return List.of(x.withDim(axis, length));
        }
    }

    /** Joins inputs along {@code axis}; all other dims and the dtype must agree. */
    record Concat(int axis) implements Op {
        public OpKind kind() { return OpKind.CONCAT; }

        public List<Shape> outputShapes(List<Shape> in) {
            if (in.isEmpty()) {
                throw fail("concat", "needs at least one input");
            }
            Shape first = in.get(0);
            storedAxis("concat", axis, first);
            long total = 0;
            for (Shape s : in) {
                sameDtype("concat", first, s);
                if (s.rank() != first.rank()) {
                    throw fail("concat", "ranks differ: %s vs %s", first, s);
                }
                for (int i = 0; i < s.rank(); i++) {
                    if (i != axis && s.dim(i) != first.dim(i)) {
                        throw fail("concat", "dim %d differs: %s vs %s (only axis %d may differ)", i, first, s, axis);
                    }
                }
                total += s.dim(axis);
            }
            if (total > Integer.MAX_VALUE) {
                throw fail("concat", "axis %d would have %d elements", axis, total);
            }
            return List.of(first.withDim(axis, (int) total));
        }
    }

    /** {@code numpy.broadcast_to}: size-1 dims (and missing leading dims) repeat to reach {@code dims}. */
    record Expand(List<Integer> dims) implements Op {
        public Expand {
            dims = List.copyOf(dims);
        }

        public OpKind kind() { return OpKind.EXPAND; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("expand", in, 1);
            Shape x = in.get(0);
            if (dims.stream().anyMatch(d -> d < 0)) {
                throw fail("expand", "target dims %s of %s must be non-negative", dims, x);
            }
            Shape out = Shape.of(x.dtype(), dims);
            if (!ShapeRules.broadcastsTo(x.dims(), ints(dims))) {
                throw fail("expand", "%s does not broadcast to %s (each dim must equal the target or be 1)", x, out);
            }
            return List.of(out);
        }
    }

    // ---------------------------------------------------------------- indexing

    /**
     * ONNX Gather: {@code out[a.., i.., b..] = data[a.., indices[i..], b..]} along {@code axis}; the result
     * has dims {@code data[:axis] + indices + data[axis+1:]}. Indices are I32 or I64; negative ones count from
     * the end; out-of-range indices are an error at run time.
     */
    record Gather(int axis) implements Op {
        public OpKind kind() { return OpKind.GATHER; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("gather", in, 2);
            Shape data = in.get(0);
            Shape idx = in.get(1);
            storedAxis("gather", axis, data);
            requireIndex("gather", idx, "indices");
            List<Integer> out = new ArrayList<>(data.dimList().subList(0, axis));
            out.addAll(idx.dimList());
            out.addAll(data.dimList().subList(axis + 1, data.rank()));
            return List.of(Shape.of(data.dtype(), out));
        }
    }

    /**
     * ONNX ScatterElements with add: the result is {@code data} with, for every position p of
     * {@code indices}, {@code updates[p]} added at p with coordinate {@code axis} replaced by
     * {@code indices[p]}. Inputs (data, indices I32/I64, updates); indices and updates have equal dims, the
     * rank of data, and no dim larger than data's except along {@code axis}. Duplicate indices accumulate.
     */
    record ScatterAdd(int axis) implements Op {
        public OpKind kind() { return OpKind.SCATTER_ADD; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("scatter_add", in, 3);
            Shape data = in.get(0);
            Shape idx = in.get(1);
            Shape upd = in.get(2);
            requireNumeric("scatter_add", data, "data");
            storedAxis("scatter_add", axis, data);
            requireIndex("scatter_add", idx, "indices");
            sameDtype("scatter_add", data, upd);
            if (!idx.sameDims(upd) || idx.rank() != data.rank()) {
                throw fail("scatter_add", "indices %s and updates %s must have equal dims and the rank of data %s",
                        idx, upd, data);
            }
            for (int i = 0; i < data.rank(); i++) {
                if (i != axis && idx.dim(i) > data.dim(i)) {
                    throw fail("scatter_add", "indices %s exceed data %s at dim %d", idx, data, i);
                }
            }
            return List.of(data);
        }
    }

    // ---------------------------------------------------------------- attention and positions

    /**
     * Scaled dot-product attention: {@code softmax(mask(softcap(scale * q k^T))) v} per head, with
     * grouped-query heads (query head h reads kv head {@code h / (numHeads / numKvHeads)}).
     *
     * <p>Inputs (q, k, v[, mask]) in {@code layout}; q has {@code numHeads} heads, k and v
     * {@code numKvHeads}, all of size {@code headDim}; k and v share the key length {@code Sk}, which may differ
     * from the query length {@code Sq} (decode with a cache). The optional mask broadcasts to
     * {@code [B, numHeads, Sq, Sk]}: a float mask of q's dtype is added to the scores; a BOOL mask keeps
     * scores where true. {@code CAUSAL} lets query i see keys {@code j <= i + Sk - Sq};
     * {@code SLIDING_WINDOW} additionally only the last {@code window} of those. {@code softcap > 0} applies
     * {@code c * tanh(s / c)} before masking; 0 turns it off. The result has q's shape. A fully masked row
     * gives zeros.
     */
    record Attention(int numHeads, int numKvHeads, int headDim, HeadLayout layout, Mask mask, int window,
                     float scale, float softcap) implements Op {
        /** Built-in masks; an explicit mask input combines with any of them. */
        public enum Mask { NONE, CAUSAL, SLIDING_WINDOW }

        public Attention {
            positive("attention", "numHeads", numHeads);
            positive("attention", "numKvHeads", numKvHeads);
            positive("attention", "headDim", headDim);
            Objects.requireNonNull(layout, "layout");
            Objects.requireNonNull(mask, "mask");
            if (numHeads % numKvHeads != 0) {
                throw fail("attention", "numHeads %d is not a multiple of numKvHeads %d", numHeads, numKvHeads);
            }
            if (mask == Mask.SLIDING_WINDOW) {
                positive("attention", "window", window);
            } else if (window != 0) {
                throw fail("attention", "window %d is only meaningful with SLIDING_WINDOW", window);
            }
            if (!(scale > 0) || Float.isInfinite(scale)) {
                throw fail("attention", "scale must be positive and finite but is %s", scale);
            }
            if (!(softcap >= 0) || Float.isInfinite(softcap)) {
                throw fail("attention", "softcap must be >= 0 (0 = off) but is %s", softcap);
            }
        }

        /** No mask, {@link HeadLayout#BSHD}, scale {@code 1/sqrt(headDim)}, no softcap. */
        public static Attention of(int numHeads, int numKvHeads, int headDim) {
            return new Attention(numHeads, numKvHeads, headDim, HeadLayout.BSHD, Mask.NONE, 0,
                    (float) (1 / Math.sqrt(headDim)), 0f);
        }

        public Attention causal() {
            return new Attention(numHeads, numKvHeads, headDim, layout, Mask.CAUSAL, 0, scale, softcap);
        }

        public Attention slidingWindow(int w) {
            return new Attention(numHeads, numKvHeads, headDim, layout, Mask.SLIDING_WINDOW, w, scale, softcap);
        }

        public Attention withLayout(HeadLayout l) {
            return new Attention(numHeads, numKvHeads, headDim, l, mask, window, scale, softcap);
        }

        public Attention withScale(float s) {
            return new Attention(numHeads, numKvHeads, headDim, layout, mask, window, s, softcap);
        }

        public Attention withSoftcap(float c) {
            return new Attention(numHeads, numKvHeads, headDim, layout, mask, window, scale, c);
        }

        public OpKind kind() { return OpKind.ATTENTION; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("attention", in, 3, 4);
            Shape q = in.get(0);
            Shape k = in.get(1);
            Shape v = in.get(2);
            requireFloat("attention", q, "q");
            sameDtype("attention", q, k);
            sameDtype("attention", q, v);
            int[] qd = headDims("attention", "q", q, layout, headDim);
            int[] kd = headDims("attention", "k", k, layout, headDim);
            int[] vd = headDims("attention", "v", v, layout, headDim);
            if (qd[2] != numHeads) {
                throw fail("attention", "q %s has %d heads of %d but numHeads is %d", q, qd[2], headDim, numHeads);
            }
            if (kd[2] != numKvHeads || vd[2] != numKvHeads) {
                throw fail("attention", "k %s and v %s must have numKvHeads=%d heads of %d", k, v, numKvHeads, headDim);
            }
            if (kd[0] != qd[0] || vd[0] != qd[0]) {
                throw fail("attention", "batch sizes differ: q %s, k %s, v %s", q, k, v);
            }
            if (kd[1] != vd[1]) {
                throw fail("attention", "k %s and v %s have different key lengths", k, v);
            }
            if (in.size() == 4) {
                Shape m = in.get(3);
                if (m.dtype() != DType.BOOL && m.dtype() != q.dtype()) {
                    throw fail("attention", "mask must be bool or %s but is %s", q.dtype().label(), m);
                }
                int[] full = {qd[0], numHeads, qd[1], kd[1]};
                if (!ShapeRules.broadcastsTo(m.dims(), full)) {
                    throw fail("attention", "mask %s does not broadcast to [B, heads, Sq, Sk] = %s", m,
                            java.util.Arrays.toString(full));
                }
            }
            return List.of(q);
        }
    }

    /**
     * Causal attention of a batch of sequences over keys and values kept in a paged KV pool: what
     * {@link Attention} computes ({@code softmax(scale * q k^T) v}, query head {@code h} reading kv head
     * {@code h / (numHeads / kvHeads)}) for each sequence over its cached history, reading K/V block by block
     * through the sequence's block table instead of from contiguous tensors. Shapes are static: {@code T} query
     * rows and {@code S} sequences are maxima, the data says how much of them a run uses.
     *
     * <p>Inputs {@code (q, pool, spill, blockTable, kvLens, queryOffsets)}:
     * <ul>
     *   <li>{@code q} f32 {@code [T, numHeads, headDim]}. Rows no sequence owns are padding; their output is 0.</li>
     *   <li>{@code pool} u8 {@code [slots, blockBytes]}: the layer's blocks in memory. A block holds keys then
     *       values, each {@code [kvHeads][tokensPerBlock][headRowBytes]}, {@code headRowBytes =
     *       storage.bytesFor(headDim)}: one head's rows for consecutive tokens are contiguous (see
     *       {@link #blockBytes()}).</li>
     *   <li>{@code spill} u8 {@code [spillSlots, blockBytes]}: blocks moved out of memory (a spill file's
     *       slots), same layout; {@code [0, blockBytes]} when there is no spill.</li>
     *   <li>{@code blockTable} i32 {@code [S, maxBlocks]}: row {@code s} holds the physical slot of sequence
     *       {@code s}'s blocks in order (block {@code i} holds its tokens {@code [i*tokensPerBlock,
     *       (i+1)*tokensPerBlock)}). An entry {@code e >= 0} is slot {@code e} of {@code pool}; {@code e < 0} is
     *       slot {@code -(e+1)} of {@code spill} (-1 is spill slot 0). Only the first
     *       {@code ceil(kvLens[s] / tokensPerBlock)} entries of a row are read; the rest may hold anything.</li>
     *   <li>{@code kvLens} i32 {@code [S]}: tokens sequence {@code s} holds, its new queries' K/V included.</li>
     *   <li>{@code queryOffsets} i32 {@code [S+1]}: sequence {@code s} owns query rows {@code [off[s],
     *       off[s+1])}, its last {@code n = off[s+1] - off[s]} positions: row {@code off[s] + j} sees keys
     *       {@code [0, kvLens[s] - n + j]}, so a decode ({@code n = 1}) sees the whole history and a prefill chunk
     *       is causal within itself. {@code n = 0} (an idle slot) is allowed.</li>
     * </ul>
     * The output is f32 {@code [T, numHeads, headDim]}. The operands' shapes are checked here; their data are
     * checked when the op runs, before anything is written, and a violation is a typed error: {@code 0 <= off[0]
     * <= ... <= off[S] <= T}, {@code n <= kvLens[s] <= maxBlocks * tokensPerBlock}, and each row's first
     * {@code ceil(kvLens[s] / tokensPerBlock)} entries name existing slots. {@code storage} is how the pools
     * encode values; quantised formats need {@code headDim} to be a multiple of their block size.
     */
    record PagedAttention(int numHeads, int kvHeads, int headDim, int tokensPerBlock, BlockFormat storage,
                          float scale) implements Op {
        public PagedAttention {
            positive("paged_attention", "numHeads", numHeads);
            positive("paged_attention", "kvHeads", kvHeads);
            positive("paged_attention", "headDim", headDim);
            positive("paged_attention", "tokensPerBlock", tokensPerBlock);
            Objects.requireNonNull(storage, "storage");
            if (numHeads % kvHeads != 0) {
                throw fail("paged_attention", "numHeads %d is not a multiple of kvHeads %d", numHeads, kvHeads);
            }
            if (headDim % storage.blockElems() != 0) {
                throw fail("paged_attention", "headDim %d is not a multiple of %s's %d-value blocks", headDim,
                        storage, storage.blockElems());
            }
            if (2.0 * kvHeads * tokensPerBlock * storage.bytesFor(headDim) > Integer.MAX_VALUE) { // double: no overflow
                throw fail("paged_attention", "a block of 2 x %d kv heads x %d tokens x %d %s bytes exceeds 2^31-1",
                        kvHeads, tokensPerBlock, storage.bytesFor(headDim), storage);
            }
            if (!(scale > 0) || Float.isInfinite(scale)) {
                throw fail("paged_attention", "scale must be positive and finite but is %s", scale);
            }
        }

        /** Scale {@code 1/sqrt(headDim)}. */
        public static PagedAttention of(int numHeads, int kvHeads, int headDim, int tokensPerBlock,
                                        BlockFormat storage) {
            return new PagedAttention(numHeads, kvHeads, headDim, tokensPerBlock, storage,
                    (float) (1 / Math.sqrt(headDim)));
        }

        public PagedAttention withScale(float s) {
            return new PagedAttention(numHeads, kvHeads, headDim, tokensPerBlock, storage, s);
        }

        /** Bytes of one head row of keys or values: {@code storage.bytesFor(headDim)}. */
        public int headRowBytes() {
            return (int) storage.bytesFor(headDim);
        }

        /** Bytes of one block's keys: {@code kvHeads * tokensPerBlock * headRowBytes}; the values follow them. */
        public int keysBytes() {
            return kvHeads * tokensPerBlock * headRowBytes();
        }

        /** Bytes of one block, keys and values: the second dim of {@code pool} and {@code spill}. */
        public int blockBytes() {
            return 2 * keysBytes();
        }

        public OpKind kind() { return OpKind.PAGED_ATTENTION; }

        public List<Shape> outputShapes(List<Shape> in) {
            String op = "paged_attention";
            arity(op, in, 6);
            Shape q = in.get(0);
            if (q.dtype() != DType.F32 || q.rank() != 3 || q.dim(1) != numHeads || q.dim(2) != headDim) {
                throw fail(op, "q must be f32 [T, numHeads=%d, headDim=%d] but is %s", numHeads, headDim, q);
            }
            String[] pools = {"pool", "spill"};
            for (int i = 0; i < 2; i++) {
                Shape p = in.get(1 + i);
                if (p.dtype() != DType.U8 || p.rank() != 2 || p.dim(1) != blockBytes()) {
                    throw fail(op, "%s must be u8 [slots, blockBytes=%d] (2 x %d kv heads x %d tokens x %d-byte %s "
                            + "rows) but is %s", pools[i], blockBytes(), kvHeads, tokensPerBlock, headRowBytes(),
                            storage, p);
                }
            }
            Shape table = in.get(3);
            if (table.dtype() != DType.I32 || table.rank() != 2) {
                throw fail(op, "blockTable must be i32 [S, maxBlocks] but is %s", table);
            }
            int seqs = table.dim(0);
            Shape lens = in.get(4);
            if (lens.dtype() != DType.I32 || lens.rank() != 1 || lens.dim(0) != seqs) {
                throw fail(op, "kvLens must be i32 [S=%d] (one length per blockTable row) but is %s", seqs, lens);
            }
            Shape offsets = in.get(5);
            if (offsets.dtype() != DType.I32 || offsets.rank() != 1 || offsets.dim(0) != seqs + 1) {
                throw fail(op, "queryOffsets must be i32 [S+1=%d] (query rows of sequence s: [off[s], off[s+1])) "
                        + "but is %s", seqs + 1, offsets);
            }
            return List.of(q);
        }
    }

    /**
     * Rotary position embedding on the first {@code rotaryDim} dims of each head of {@code x}; the rest pass
     * through. Rotate-half (NeoX/HF) pairs dim i with {@code i + rotaryDim/2}; {@code interleaved}
     * (GPT-J/Meta) pairs {@code 2i} with {@code 2i+1}. For pair (a, b) at position s and frequency i:
     * {@code a' = a cos[s,i] - b sin[s,i]}, {@code b' = b cos[s,i] + a sin[s,i]}.
     *
     * <p>Inputs (x, cos, sin); x in {@code layout}; cos and sin are {@code [S, rotaryDim/2]} or
     * {@code [B, S, rotaryDim/2]} and hold the caller's positions (gather rows of a table for decode).
     */
    record Rope(int headDim, int rotaryDim, boolean interleaved, HeadLayout layout) implements Op {
        public Rope {
            positive("rope", "headDim", headDim);
            positive("rope", "rotaryDim", rotaryDim);
            Objects.requireNonNull(layout, "layout");
            if (rotaryDim % 2 != 0 || rotaryDim > headDim) {
                throw fail("rope", "rotaryDim %d must be even and at most headDim %d", rotaryDim, headDim);
            }
        }

        public OpKind kind() { return OpKind.ROPE; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("rope", in, 3);
            Shape x = in.get(0);
            requireFloat("rope", x, "x");
            int[] xd = headDims("rope", "x", x, layout, headDim);
            for (int i = 1; i < 3; i++) {
                Shape t = in.get(i);
                String role = i == 1 ? "cos" : "sin";
                sameDtype("rope", x, t);
                boolean ok = (t.rank() == 2 && t.dim(0) == xd[1] && t.dim(1) == rotaryDim / 2)
                        || (t.rank() == 3 && t.dim(0) == xd[0] && t.dim(1) == xd[1] && t.dim(2) == rotaryDim / 2);
                if (!ok) {
                    throw fail("rope", "%s %s must be [S=%d, %d] or [B=%d, S=%d, %d]", role, t, xd[1], rotaryDim / 2,
                            xd[0], xd[1], rotaryDim / 2);
                }
            }
            return List.of(x);
        }
    }

    // ---------------------------------------------------------------- convolution and pooling

    /**
     * N-d convolution (cross-correlation, as ONNX Conv) of {@code x [N, Cin, *spatial]} with
     * {@code w [Cout, Cin/groups, *kernel]} plus an optional {@code bias [Cout]}; 1 to 3 spatial dims.
     * {@code pads} holds all begin paddings then all end paddings (ONNX order). Output size per dim:
     * {@code floor((in + padBegin + padEnd - dilation*(k-1) - 1) / stride) + 1}.
     */
    record Conv(List<Integer> strides, List<Integer> pads, List<Integer> dilations, int groups) implements Op {
        public Conv {
            strides = List.copyOf(strides);
            pads = List.copyOf(pads);
            dilations = List.copyOf(dilations);
            checkSpatial("conv", strides, pads, dilations);
            positive("conv", "groups", groups);
        }

        /** Stride 1, no padding, dilation 1, one group, for {@code spatialRank} spatial dims. */
        public static Conv of(int spatialRank) {
            return new Conv(repeat(1, spatialRank), repeat(0, 2 * spatialRank), repeat(1, spatialRank), 1);
        }

        public Conv withStrides(int... s) { return new Conv(list(s), pads, dilations, groups); }

        /** Either one padding per spatial dim (both sides) or ONNX's begins-then-ends list. */
        public Conv withPads(int... p) { return new Conv(strides, padList(p, strides.size()), dilations, groups); }

        public Conv withDilations(int... d) { return new Conv(strides, pads, list(d), groups); }

        public Conv withGroups(int g) { return new Conv(strides, pads, dilations, g); }

        public OpKind kind() { return OpKind.CONV; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("conv", in, 2, 3);
            Shape x = in.get(0);
            Shape w = in.get(1);
            int sr = strides.size();
            requireFloat("conv", x, "x");
            sameDtype("conv", x, w);
            if (x.rank() != sr + 2 || w.rank() != sr + 2) {
                throw fail("conv", "x %s and w %s must both have rank %d for %d spatial dims", x, w, sr + 2, sr);
            }
            int cout = w.dim(0);
            if (x.dim(1) % groups != 0 || cout % groups != 0 || w.dim(1) * groups != x.dim(1)) {
                throw fail("conv", "channels do not match: x %s has %d channels, w %s expects Cin/groups=%d with groups=%d",
                        x, x.dim(1), w, w.dim(1), groups);
            }
            if (in.size() == 3 && !in.get(2).equals(Shape.of(x.dtype(), cout))) {
                throw fail("conv", "bias must be %s but is %s", Shape.of(x.dtype(), cout), in.get(2));
            }
            requireKernel("conv", w);
            int[] out = new int[sr + 2];
            out[0] = x.dim(0);
            out[1] = cout;
            for (int i = 0; i < sr; i++) {
                out[i + 2] = windowCount("conv", x, i, w.dim(i + 2), strides.get(i), pads.get(i), pads.get(i + sr),
                        dilations.get(i), false);
            }
            return List.of(Shape.of(x.dtype(), out));
        }
    }

    /**
     * Transposed convolution (the gradient of {@link Conv} with respect to its input), as ONNX
     * ConvTranspose: {@code x [N, Cin, *spatial]}, {@code w [Cin, Cout/groups, *kernel]}, optional
     * {@code bias [Cout]}. Output size per dim:
     * {@code (in - 1) * stride - padBegin - padEnd + dilation*(k-1) + outputPadding + 1}.
     */
    record ConvTranspose(List<Integer> strides, List<Integer> pads, List<Integer> dilations,
                         List<Integer> outputPadding, int groups) implements Op {
        public ConvTranspose {
            strides = List.copyOf(strides);
            pads = List.copyOf(pads);
            dilations = List.copyOf(dilations);
            outputPadding = List.copyOf(outputPadding);
            checkSpatial("conv_transpose", strides, pads, dilations);
            positive("conv_transpose", "groups", groups);
            if (outputPadding.size() != strides.size()) {
                throw fail("conv_transpose", "outputPadding %s must have one entry per spatial dim", outputPadding);
            }
            for (int i = 0; i < strides.size(); i++) {
                int op = outputPadding.get(i);
                if (op < 0 || (op >= strides.get(i) && op >= dilations.get(i))) {
                    throw fail("conv_transpose", "outputPadding %d must be smaller than stride %d or dilation %d", op,
                            strides.get(i), dilations.get(i));
                }
            }
        }

        public static ConvTranspose of(int spatialRank) {
            return new ConvTranspose(repeat(1, spatialRank), repeat(0, 2 * spatialRank), repeat(1, spatialRank),
                    repeat(0, spatialRank), 1);
        }

        public ConvTranspose withStrides(int... s) { return new ConvTranspose(list(s), pads, dilations, outputPadding, groups); }

        public ConvTranspose withPads(int... p) { return new ConvTranspose(strides, padList(p, strides.size()), dilations, outputPadding, groups); }

        public ConvTranspose withDilations(int... d) { return new ConvTranspose(strides, pads, list(d), outputPadding, groups); }

        public ConvTranspose withOutputPadding(int... o) { return new ConvTranspose(strides, pads, dilations, list(o), groups); }

        public ConvTranspose withGroups(int g) { return new ConvTranspose(strides, pads, dilations, outputPadding, g); }

        public OpKind kind() { return OpKind.CONV_TRANSPOSE; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("conv_transpose", in, 2, 3);
            Shape x = in.get(0);
            Shape w = in.get(1);
            int sr = strides.size();
            requireFloat("conv_transpose", x, "x");
            sameDtype("conv_transpose", x, w);
            if (x.rank() != sr + 2 || w.rank() != sr + 2) {
                throw fail("conv_transpose", "x %s and w %s must both have rank %d", x, w, sr + 2);
            }
            if (w.dim(0) != x.dim(1) || x.dim(1) % groups != 0) {
                throw fail("conv_transpose", "w %s must be [Cin=%d, Cout/groups, ...] with Cin divisible by groups=%d",
                        w, x.dim(1), groups);
            }
            int cout = w.dim(1) * groups;
            if (in.size() == 3 && !in.get(2).equals(Shape.of(x.dtype(), cout))) {
                throw fail("conv_transpose", "bias must be %s but is %s", Shape.of(x.dtype(), cout), in.get(2));
            }
            requireKernel("conv_transpose", w);
            int[] out = new int[sr + 2];
            out[0] = x.dim(0);
            out[1] = cout;
            for (int i = 0; i < sr; i++) {
                long o = (long) (x.dim(i + 2) - 1) * strides.get(i) - pads.get(i) - pads.get(i + sr)
                        + (long) dilations.get(i) * (w.dim(i + 2) - 1) + outputPadding.get(i) + 1;
                if (o < 0 || o > Integer.MAX_VALUE) {
                    throw fail("conv_transpose", "spatial dim %d would have size %d for x %s, w %s", i, o, x, w);
                }
                out[i + 2] = (int) o;
            }
            return List.of(Shape.of(x.dtype(), out));
        }
    }

    /**
     * Max or average pooling over {@code x [N, C, *spatial]} with 1 to 3 spatial dims. Padding cells are
     * skipped by MAX; AVG divides by the full window ({@code countIncludePad}) or by the cells inside the
     * input. {@code ceilMode} rounds the output size up (a window must still start inside the input or its
     * begin padding). Paddings must be smaller than the (dilated) window.
     */
    record Pool(Kind op, List<Integer> kernel, List<Integer> strides, List<Integer> pads, List<Integer> dilations,
                boolean ceilMode, boolean countIncludePad) implements Op {
        /** Pooling function. */
        public enum Kind { MAX, AVG }

        public Pool {
            Objects.requireNonNull(op, "op");
            kernel = List.copyOf(kernel);
            strides = List.copyOf(strides);
            pads = List.copyOf(pads);
            dilations = List.copyOf(dilations);
            checkSpatial("pool", strides, pads, dilations);
            if (kernel.size() != strides.size()) {
                throw fail("pool", "kernel %s must have one entry per spatial dim (%d)", kernel, strides.size());
            }
            for (int i = 0; i < kernel.size(); i++) {
                positive("pool", "kernel size", kernel.get(i));
                int span = dilations.get(i) * (kernel.get(i) - 1) + 1;
                if (pads.get(i) >= span || pads.get(i + kernel.size()) >= span) {
                    throw fail("pool", "pads %s must be smaller than the window %d in dim %d", pads, span, i);
                }
            }
        }

        /** Window {@code kernel}, stride equal to the window, no padding (the usual 2x2/2 pool). */
        public static Pool of(Kind kind, int... kernel) {
            int n = kernel.length;
            return new Pool(kind, list(kernel), list(kernel), repeat(0, 2 * n), repeat(1, n), false, true);
        }

        public Pool withStrides(int... s) { return new Pool(op, kernel, list(s), pads, dilations, ceilMode, countIncludePad); }

        public Pool withPads(int... p) { return new Pool(op, kernel, strides, padList(p, strides.size()), dilations, ceilMode, countIncludePad); }

        public Pool withDilations(int... d) { return new Pool(op, kernel, strides, pads, list(d), ceilMode, countIncludePad); }

        public Pool withCeilMode(boolean c) { return new Pool(op, kernel, strides, pads, dilations, c, countIncludePad); }

        public Pool withCountIncludePad(boolean c) { return new Pool(op, kernel, strides, pads, dilations, ceilMode, c); }

        public OpKind kind() { return OpKind.POOL; }

        public String label() { return op == Kind.MAX ? "max_pool" : "avg_pool"; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity(label(), in, 1);
            Shape x = in.get(0);
            int sr = kernel.size();
            requireFloat(label(), x, "x");
            if (x.rank() != sr + 2) {
                throw fail(label(), "x %s must have rank %d for a %d-d window", x, sr + 2, sr);
            }
            int[] out = x.dims();
            for (int i = 0; i < sr; i++) {
                out[i + 2] = windowCount(label(), x, i, kernel.get(i), strides.get(i), pads.get(i), pads.get(i + sr),
                        dilations.get(i), ceilMode);
            }
            return List.of(Shape.of(x.dtype(), out));
        }
    }

    // ---------------------------------------------------------------- spectral

    /**
     * A discrete Fourier transform of length {@code n} along {@code axis}, batched over every other dim, as
     * numpy.fft's {@code fft}, {@code ifft}, {@code rfft} and {@code irfft} (see {@link FftKind} for the sums and
     * {@link FftNorm} for the scaling).
     *
     * <p>A complex operand or result is either C64 or an F32/F64 tensor whose last dim of 2 holds (re, im) pairs
     * (F32 pairs and C64 have the same bytes); {@code axis} counts the signal dims, never that pair dim. Shapes:
     * <ul>
     *   <li>{@code C2C_*}: complex {@code [.., n, ..]} to the same shape and dtype;
     *   <li>{@code R2C}: real F32/F64 {@code [.., n, ..]} to pairs {@code [.., n/2+1, .., 2]} of the same dtype;
     *   <li>{@code C2R}: complex {@code [.., n/2+1, ..]} to real {@code [.., n, ..]} (F32 for C64 input); {@code n}
     *       says whether the signal was odd or even, as numpy's {@code irfft(a, n)}.
     * </ul>
     * Padding or cropping to another length is the caller's (see {@link Signal}).
     */
    record Fft(FftKind op, int axis, FftNorm norm, int n) implements Op {
        public Fft {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(norm, "norm");
            positive(op.label(), "n", n);
        }

        /**
         * The number of signal dims {@code x} has as the operand of {@code op}: its rank, less the pair dim when
         * the operand is complex and F32/F64.
         */
        public static int signalRank(FftKind op, Shape x) {
            boolean pairs = op != FftKind.R2C && x.dtype() != DType.C64;
            return pairs ? x.rank() - 1 : x.rank();
        }

        public OpKind kind() { return OpKind.FFT; }

        public String label() { return op.label(); }

        public List<Shape> outputShapes(List<Shape> in) {
            String name = label();
            arity(name, in, 1);
            Shape x = in.get(0);
            DType t = x.dtype();
            if (t != DType.F32 && t != DType.F64 && t != DType.C64) {
                throw fail(name, "x must be f32, f64 or c64 but is %s", x);
            }
            if (op == FftKind.R2C && t == DType.C64) {
                throw fail(name, "x must be real (f32 or f64) but is %s; fft transforms complex input", x);
            }
            boolean pairs = op != FftKind.R2C && t != DType.C64;
            if (pairs && (x.rank() < 2 || x.dim(x.rank() - 1) != 2)) {
                throw fail(name, "complex x %s must be c64 or end in a (re, im) dim of 2", x);
            }
            int rank = signalRank(op, x);
            if (axis < 0 || axis >= rank) {
                throw fail(name, "axis %d is out of range for the %d signal dims of x %s", axis, rank, x);
            }
            int length = x.dim(axis);
            if (op == FftKind.C2R && length != n / 2 + 1) {
                throw fail(name, "axis %d of x %s has %d bins but n=%d needs n/2+1 = %d", axis, x, length, n, n / 2 + 1);
            }
            if (op != FftKind.C2R && length != n) {
                throw fail(name, "axis %d of x %s has length %d but n is %d", axis, x, length, n);
            }
            return switch (op) {
                case C2C_FORWARD, C2C_INVERSE -> List.of(x);
                case R2C -> {
                    List<Integer> dims = new ArrayList<>(x.dimList());
                    dims.set(axis, n / 2 + 1);
                    dims.add(2);
                    yield List.of(Shape.of(t, dims));
                }
                case C2R -> {
                    List<Integer> dims = new ArrayList<>(x.dimList().subList(0, rank));
                    dims.set(axis, n);
                    yield List.of(Shape.of(t == DType.C64 ? DType.F32 : t, dims));
                }
            };
        }
    }

    // ---------------------------------------------------------------- control flow

    /**
     * Runs {@code thenBranch} when the predicate is true, else {@code elseBranch}; only the chosen branch
     * executes. Inputs (predicate BOOL with one element, captures...); each branch's inputs match the
     * captures in order, both branches' outputs match, and they are the node's outputs. Branches take data
     * only through their inputs (no params).
     */
    record If(Graph thenBranch, Graph elseBranch) implements Op {
        public If {
            Objects.requireNonNull(thenBranch, "thenBranch");
            Objects.requireNonNull(elseBranch, "elseBranch");
        }

        public OpKind kind() { return OpKind.IF; }

        public List<Shape> outputShapes(List<Shape> in) {
            if (in.isEmpty()) {
                throw fail("if", "needs a predicate input");
            }
            Shape p = in.get(0);
            if (p.dtype() != DType.BOOL || p.elementCount() != 1) {
                throw fail("if", "predicate must be a bool with one element but is %s", p);
            }
            List<Shape> captures = in.subList(1, in.size());
            checkSubgraph("if", "then", thenBranch, captures);
            checkSubgraph("if", "else", elseBranch, captures);
            if (!thenBranch.outputShapes().equals(elseBranch.outputShapes())) {
                throw fail("if", "branches return different shapes: then %s, else %s", thenBranch.outputShapes(),
                        elseBranch.outputShapes());
            }
            return thenBranch.outputShapes();
        }
    }

    /**
     * {@code while (cond(c)) c = body(c); return c} over the loop-carried values {@code c} (the inputs).
     * {@code cond} maps the carries to one BOOL element; {@code body} maps them to new carries of the same
     * shapes. {@code maxIterations >= 0} is a guard against runaway loops: a run whose loop would start
     * iteration {@code maxIterations + 1} fails with an error naming the node instead of spinning; {@code -1}
     * means no guard. (A fixed trip count belongs in {@code cond}, e.g. a counter carry.)
     */
    record While(Graph cond, Graph body, long maxIterations) implements Op {
        public While {
            Objects.requireNonNull(cond, "cond");
            Objects.requireNonNull(body, "body");
            if (maxIterations < -1) {
                throw fail("while", "maxIterations must be -1 (no guard) or >= 0 but is %d", maxIterations);
            }
        }

        public OpKind kind() { return OpKind.WHILE; }

        public List<Shape> outputShapes(List<Shape> in) {
            if (in.isEmpty()) {
                throw fail("while", "needs at least one loop-carried input");
            }
            checkSubgraph("while", "cond", cond, in);
            List<Shape> c = cond.outputShapes();
            if (c.size() != 1 || c.get(0).dtype() != DType.BOOL || c.get(0).elementCount() != 1) {
                throw fail("while", "cond must return one bool with one element but returns %s", c);
            }
            checkSubgraph("while", "body", body, in);
            if (!body.outputShapes().equals(in)) {
                throw fail("while", "body must return the carries' shapes %s but returns %s", in, body.outputShapes());
            }
            return List.copyOf(in);
        }
    }

    /**
     * {@code jax.lax.scan}: inputs are {@code numCarries} carries then xs, each xs with leading dim
     * {@code length}. For t in 0..length-1 (reversed when {@code reverse}), {@code body(carries, xs[t])}
     * returns new carries then per-step outputs ys[t]. The node returns the final carries, then each y
     * stacked to {@code [length, ...]}.
     */
    record Scan(Graph body, int length, int numCarries, boolean reverse) implements Op {
        public Scan {
            Objects.requireNonNull(body, "body");
            ShapeRules.nonNegative("scan", "length", length);
            ShapeRules.nonNegative("scan", "numCarries", numCarries);
        }

        public OpKind kind() { return OpKind.SCAN; }

        public List<Shape> outputShapes(List<Shape> in) {
            if (in.size() < numCarries) {
                throw fail("scan", "expected at least %d carries but got %d inputs", numCarries, in.size());
            }
            List<Shape> bodyIn = new ArrayList<>(in.subList(0, numCarries));
            for (Shape x : in.subList(numCarries, in.size())) {
                if (x.rank() == 0 || x.dim(0) != length) {
                    throw fail("scan", "scanned input %s must have leading dim length=%d", x, length);
                }
                bodyIn.add(removeAxis(x, 0));
            }
            checkSubgraph("scan", "body", body, bodyIn);
            List<Shape> bodyOut = body.outputShapes();
            if (bodyOut.size() < numCarries || !bodyOut.subList(0, numCarries).equals(in.subList(0, numCarries))) {
                throw fail("scan", "body must return the carries' shapes %s first but returns %s",
                        in.subList(0, numCarries), bodyOut);
            }
            List<Shape> out = new ArrayList<>(in.subList(0, numCarries));
            for (Shape y : bodyOut.subList(numCarries, bodyOut.size())) {
                List<Integer> d = new ArrayList<>();
                d.add(length);
                d.addAll(y.dimList());
                out.add(Shape.of(y.dtype(), d));
            }
            return out;
        }
    }

    // ---------------------------------------------------------------- fusion products

    /**
     * Several element-wise ops as one kernel: {@code program} evaluated per element over the operands,
     * broadcast together (NumPy rules); one pass over memory. Made by the fusion pass; every operand has the
     * same float dtype, which every step accepts.
     */
    record Fused(ElementwiseProgram program) implements Op {
        public Fused {
            Objects.requireNonNull(program, "program");
        }

        public OpKind kind() { return OpKind.FUSED; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("fused", in, program.inputs());
            DType t = in.get(0).dtype();
            for (Shape s : in) {
                sameDtype("fused", in.get(0), s);
            }
            if (!program.accepts(t)) {
                throw fail("fused", "program %s is not defined on %s", program, t.label());
            }
            return List.of(Shape.of(t, broadcast("fused", in.toArray(Shape[]::new))));
        }
    }

    /**
     * A matmul whose result goes straight through an element-wise epilogue (bias, activation, residual):
     * inputs (a, b, extras...); {@code epilogue} input 0 is {@code a @ b}, inputs 1.. are the extras, each
     * broadcastable to the matmul result, whose shape the op keeps. Float operands of one dtype.
     */
    record FusedMatMul(ElementwiseProgram epilogue, boolean transA, boolean transB) implements Op {
        public FusedMatMul {
            Objects.requireNonNull(epilogue, "epilogue");
        }

        /** {@code a @ b} without transposes, then {@code epilogue}. */
        public FusedMatMul(ElementwiseProgram epilogue) {
            this(epilogue, false, false);
        }

        public OpKind kind() { return OpKind.FUSED_MATMUL; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("fused_matmul", in, 1 + epilogue.inputs());
            Shape mm = new MatMul(transA, transB).outputShapes(in.subList(0, 2)).get(0);
            requireFloat("fused_matmul", mm, "a @ b");
            if (!epilogue.accepts(mm.dtype())) {
                throw fail("fused_matmul", "epilogue %s is not defined on %s", epilogue, mm.dtype().label());
            }
            for (Shape extra : in.subList(2, in.size())) {
                sameDtype("fused_matmul", mm, extra);
                if (!ShapeRules.broadcastsTo(extra.dims(), mm.dims())) {
                    throw fail("fused_matmul", "epilogue operand %s does not broadcast to the matmul result %s", extra, mm);
                }
            }
            return List.of(mm);
        }
    }

    /**
     * A residual add followed by a normalisation, as one row pass: {@code sum = x + residual} and
     * {@code norm(sum)} (RMS when {@code rms}, else layer norm) over axes {@code [axis, rank)}. Inputs
     * (x, residual, gamma[, beta]); outputs (sum, normalised): the sum is the next residual stream.
     */
    record AddNorm(boolean rms, int axis, float eps) implements Op {
        public AddNorm {
            requireEps("add_norm", eps);
        }

        public OpKind kind() { return OpKind.ADD_NORM; }

        public String label() { return rms ? "add_rms_norm" : "add_layer_norm"; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity(label(), in, 3, 4);
            Shape x = in.get(0);
            if (!x.equals(in.get(1))) {
                throw fail(label(), "x %s and residual %s must have the same shape and dtype", x, in.get(1));
            }
            List<Shape> norm = new ArrayList<>(in);
            norm.remove(1);
            List<Shape> out = normShapes(label(), norm, axis);
            return List.of(x, out.get(0));
        }
    }

    // ---------------------------------------------------------------- extension

    /**
     * A user op executed by a kernel registered for {@code name} on the target device. The IR cannot infer
     * its shapes, so it records them ({@code outputs}); the runtime's {@code OpRegistry} computes them from
     * the registered shape function when building. A custom op is impure (never merged, folded or dropped
     * by passes) unless {@code pure} says its outputs depend only on its inputs.
     */
    record Custom(String name, Attrs attrs, List<Shape> outputs, boolean pure) implements Op {
        /** An impure custom op. */
        public Custom(String name, Attrs attrs, List<Shape> outputs) {
            this(name, attrs, outputs, false);
        }

        public Custom {
            requireName("custom", name);
            Objects.requireNonNull(attrs, "attrs");
            outputs = List.copyOf(outputs);
            if (outputs.isEmpty()) {
                throw fail("custom", "op '%s' must declare at least one output", name);
            }
        }

        public OpKind kind() { return OpKind.CUSTOM; }

        public String label() { return "custom:" + name; }

        public boolean isPure() { return pure; }

        public List<Shape> outputShapes(List<Shape> in) {
            return outputs;
        }
    }

    // ---------------------------------------------------------------- random numbers

    /**
     * A tensor of {@code shape} drawn from the normal distribution with {@code mean} and standard deviation
     * {@code scale} (ONNX {@code RandomNormal}); no operands; float dtypes. The generator is chosen at compile
     * time ({@code CompileOptions.rng}). {@code seed} is used when {@code hasSeed} (an ONNX float seed maps to
     * {@code (long) seed}, truncating as ONNX Runtime does), else the compile options' seed; {@code key}
     * identifies the node's stream, so two RNG nodes draw independent values. Impure: see
     * {@link OpKind#IMPURE}.
     */
    record RngNormal(float mean, float scale, Shape shape, long seed, boolean hasSeed, long key) implements Op {
        public RngNormal {
            rngParams("rng_normal", "mean", mean, "scale", scale, shape);
            if (scale < 0) {
                throw fail("rng_normal", "scale (the standard deviation) must be >= 0 but is %s", scale);
            }
        }

        public OpKind kind() { return OpKind.RNG_NORMAL; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("rng_normal", in, 0);
            return List.of(shape);
        }
    }

    /**
     * A tensor of {@code shape} drawn uniformly from {@code [low, high)} (ONNX {@code RandomUniform}); no
     * operands; float dtypes. Seed, key and generator as for {@link RngNormal}. Impure: see
     * {@link OpKind#IMPURE}.
     */
    record RngUniform(float low, float high, Shape shape, long seed, boolean hasSeed, long key) implements Op {
        public RngUniform {
            rngParams("rng_uniform", "low", low, "high", high, shape);
            if (low > high) {
                throw fail("rng_uniform", "low %s must be <= high %s", low, high);
            }
        }

        public OpKind kind() { return OpKind.RNG_UNIFORM; }

        public List<Shape> outputShapes(List<Shape> in) {
            arity("rng_uniform", in, 0);
            return List.of(shape);
        }
    }

    // ---------------------------------------------------------------- shared rules

    private static void requireName(String op, String name) {
        if (name == null || name.isBlank()) {
            throw fail(op, "name must be non-empty");
        }
    }

    private static void rngParams(String op, String aName, float a, String bName, float b, Shape shape) {
        Objects.requireNonNull(shape, "shape");
        requireFloat(op, shape, "shape");
        if (!Float.isFinite(a) || !Float.isFinite(b)) {
            throw fail(op, "%s and %s must be finite but are %s and %s", aName, bName, a, b);
        }
    }

    private static void requireEps(String op, float eps) {
        if (!(eps >= 0) || Float.isInfinite(eps)) {
            throw fail(op, "eps must be finite and >= 0 but is %s", eps);
        }
    }

    /** {@code s}, or {@code s} with its last two dims swapped when {@code swap}. */
    private static Shape logical(String op, Shape s, boolean swap, String flag) {
        if (!swap) {
            return s;
        }
        if (s.rank() < 2) {
            throw fail(op, "%s needs an operand of rank >= 2 but got %s", flag, s);
        }
        int[] d = s.dims();
        int t = d[d.length - 1];
        d[d.length - 1] = d[d.length - 2];
        d[d.length - 2] = t;
        return Shape.of(s.dtype(), d);
    }

    private static Shape removeAxis(Shape s, int axis) {
        List<Integer> d = new ArrayList<>(s.dimList());
        d.remove(axis);
        return Shape.of(s.dtype(), d);
    }

    private static List<Shape> sameShapeAlongAxis(String op, List<Shape> in, int axis) {
        arity(op, in, 1);
        requireFloat(op, in.get(0), "operand");
        storedAxis(op, axis, in.get(0));
        return List.of(in.get(0));
    }

    private static List<Shape> normShapes(String op, List<Shape> in, int axis) {
        arity(op, in, 2, 3);
        Shape x = in.get(0);
        requireFloat(op, x, "x");
        storedAxis(op, axis, x);
        Shape expected = Shape.of(x.dtype(), x.dimList().subList(axis, x.rank()));
        for (int i = 1; i < in.size(); i++) {
            if (!in.get(i).equals(expected)) {
                throw fail(op, "%s must be %s (the normalised dims of %s from axis %d) but is %s",
                        i == 1 ? "gamma" : "beta", expected, x, axis, in.get(i));
            }
        }
        return List.of(x);
    }

    /** (batch, sequence, heads, headDim) of an attention operand in {@code layout}. */
    private static int[] headDims(String op, String role, Shape s, HeadLayout layout, int headDim) {
        if (s.rank() == 3 && layout == HeadLayout.BSHD) {
            if (s.dim(2) % headDim != 0) {
                throw fail(op, "%s %s: last dim %d is not a multiple of headDim %d", role, s, s.dim(2), headDim);
            }
            return new int[] {s.dim(0), s.dim(1), s.dim(2) / headDim, headDim};
        }
        if (s.rank() == 4) {
            int[] d = layout == HeadLayout.BSHD
                    ? new int[] {s.dim(0), s.dim(1), s.dim(2), s.dim(3)}
                    : new int[] {s.dim(0), s.dim(2), s.dim(1), s.dim(3)};
            if (d[3] != headDim) {
                throw fail(op, "%s %s: head dim %d differs from headDim %d", role, s, d[3], headDim);
            }
            return d;
        }
        throw fail(op, "%s %s must be [B,S,H*D] or [B,S,H,D] (BSHD) or [B,H,S,D] (BHSD); layout is %s", role, s, layout);
    }

    private static void checkSpatial(String op, List<Integer> strides, List<Integer> pads, List<Integer> dilations) {
        int sr = strides.size();
        if (sr < 1 || sr > 3) {
            throw fail(op, "supports 1 to 3 spatial dims, got %d", sr);
        }
        if (pads.size() != 2 * sr || dilations.size() != sr) {
            throw fail(op, "pads %s need %d entries (begins then ends) and dilations %s need %d", pads, 2 * sr,
                    dilations, sr);
        }
        for (int i = 0; i < sr; i++) {
            positive(op, "stride", strides.get(i));
            positive(op, "dilation", dilations.get(i));
        }
        for (int p : pads) {
            ShapeRules.nonNegative(op, "padding", p);
        }
    }

    /** Convolution weights {@code [O, I, *kernel]} need a non-empty kernel in every spatial dim. */
    private static void requireKernel(String op, Shape w) {
        for (int i = 2; i < w.rank(); i++) {
            if (w.dim(i) == 0) {
                throw fail(op, "w %s has an empty kernel in spatial dim %d", w, i - 2);
            }
        }
    }

    private static int windowCount(String op, Shape x, int i, int k, int stride, int padBegin, int padEnd,
                                   int dilation, boolean ceil) {
        long in = x.dim(i + 2);
        long span = (long) dilation * (k - 1) + 1;
        long room = in + padBegin + padEnd - span;
        long out = ceil ? Math.ceilDiv(room, stride) + 1 : Math.floorDiv(room, stride) + 1;
        if (ceil && (out - 1) * stride >= in + padBegin) {
            out--; // the last window would start in the end padding
        }
        if (out < 1) {
            throw fail(op, "window %d (kernel %d, dilation %d) is larger than spatial dim %d of %s plus padding %d+%d",
                    span, k, dilation, i, x, padBegin, padEnd);
        }
        if (out > Integer.MAX_VALUE) {
            throw fail(op, "spatial dim %d of %s with padding %d+%d would give %d windows, more than a dim can hold",
                    i, x, padBegin, padEnd, out);
        }
        return (int) out;
    }

    private static void checkSubgraph(String op, String role, Graph g, List<Shape> expectedInputs) {
        if (!g.params().isEmpty()) {
            throw fail(op, "%s graph @%s declares params %s; subgraphs take data only through their inputs", role,
                    g.name(), g.params().stream().map(v -> g.nameOf(v)).toList());
        }
        if (g.outputs().isEmpty()) {
            throw fail(op, "%s graph @%s has no outputs set", role, g.name());
        }
        if (!g.inputShapes().equals(expectedInputs)) {
            throw fail(op, "%s graph @%s takes inputs %s but is given %s", role, g.name(), g.inputShapes(),
                    expectedInputs);
        }
    }

    private static List<Integer> repeat(int v, int n) {
        return java.util.Collections.nCopies(n, v);
    }

    private static List<Integer> padList(int[] p, int spatialRank) {
        if (p.length == spatialRank) { // one value per spatial dim: the same padding at both ends
            int[] both = new int[2 * p.length];
            for (int i = 0; i < p.length; i++) {
                both[i] = p[i];
                both[i + p.length] = p[i];
            }
            return list(both);
        }
        return list(p);
    }
}
