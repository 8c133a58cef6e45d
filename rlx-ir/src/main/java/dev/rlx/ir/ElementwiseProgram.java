package dev.rlx.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A straight-line program of element-wise steps: the body of a fused element-wise kernel. Values are
 * numbered: {@code 0 .. inputs-1} are the fused op's operands (broadcast together, NumPy rules), then step
 * {@code i} defines value {@code inputs + i}. The last step is the result. Besides unary and binary functions a
 * step may compare (giving a mask) and select by a mask, so what exporters write as compare-and-where (LeakyRelu,
 * Elu, ThresholdedRelu, Shrink) fuses too. Immutable, with value equality.
 *
 * <pre>{@code
 * // relu(in0 * in1 + in2)
 * ElementwiseProgram p = ElementwiseProgram.builder(3)
 *     .binary(BinaryKind.MUL, 0, 1).binary(BinaryKind.ADD, 3, 2).unary(UnaryKind.RELU, 4).build();
 * }</pre>
 */
public final class ElementwiseProgram {
    /**
     * One step, of one of four forms: {@code unary(a)}, {@code binary(a, b)}, {@code compare(a, b)} (a mask: true
     * or false per element) or {@code select(a, b, c)} ({@code a ? b : c} per element, {@code a} a mask), as
     * {@link Op.Unary}, {@link Op.Binary}, {@link Op.Compare} and {@link Op.Where} define them. Operands refer to
     * earlier values only; masks feed selects only, and the result is not a mask. Unused operands are -1.
     */
    public record Step(UnaryKind unary, BinaryKind binary, CompareKind compare, boolean select, int a, int b, int c) {
        public Step {
            int forms = (unary != null ? 1 : 0) + (binary != null ? 1 : 0) + (compare != null ? 1 : 0) + (select ? 1 : 0);
            if (forms != 1) {
                throw new IllegalArgumentException("a step is exactly one of unary, binary, compare or select");
            }
        }

        /** A unary step ({@code binary == null}) or a binary one. */
        public Step(UnaryKind unary, BinaryKind binary, int a, int b) {
            this(unary, binary, null, false, a, b, -1);
        }

        public static Step compare(CompareKind k, int a, int b) {
            return new Step(null, null, Objects.requireNonNull(k), false, a, b, -1);
        }

        /** {@code cond ? ifTrue : ifFalse}. */
        public static Step select(int cond, int ifTrue, int ifFalse) {
            return new Step(null, null, null, true, cond, ifTrue, ifFalse);
        }

        public boolean isUnary() {
            return unary != null;
        }

        public boolean isBinary() {
            return binary != null;
        }

        public boolean isCompare() {
            return compare != null;
        }

        public boolean isSelect() {
            return select;
        }

        /** How many operands the step reads: 1, 2 or 3. */
        public int arity() {
            return isUnary() ? 1 : isSelect() ? 3 : 2;
        }

        /** Operand {@code i < arity()}. */
        public int operand(int i) {
            return i == 0 ? a : i == 1 ? b : c;
        }

        public String label() {
            return isUnary() ? unary.label() : isBinary() ? binary.label() : isCompare() ? compare.label() : "where";
        }
    }

    private final int inputs;
    private final List<Step> steps;

    private ElementwiseProgram(int inputs, List<Step> steps) {
        if (inputs < 1) {
            throw new IllegalArgumentException("a program needs at least one input, got " + inputs);
        }
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("a program needs at least one step");
        }
        boolean[] mask = new boolean[inputs + steps.size()];
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            int defined = inputs + i;
            for (int k = 0; k < s.arity(); k++) {
                int v = s.operand(k);
                if (v < 0 || v >= defined) {
                    throw new IllegalArgumentException("step " + i + " (" + s.label() + ") refers to a value not defined "
                            + "before it: " + v + " (defined: 0.." + (defined - 1) + ")");
                }
                if (mask[v] != (s.isSelect() && k == 0)) {
                    throw new IllegalArgumentException("step " + i + " (" + s.label() + ") operand " + k + " must "
                            + (mask[v] ? "not " : "") + "be a mask (masks come from comparisons and feed selects)");
                }
            }
            mask[defined] = s.isCompare();
        }
        if (mask[mask.length - 1]) {
            throw new IllegalArgumentException("the last step (the result) is a comparison: a program's result is not a mask");
        }
        this.inputs = inputs;
        this.steps = List.copyOf(steps);
    }

    /** A program from raw steps (as the serializer reads them); refs are validated. */
    public static ElementwiseProgram of(int inputs, List<Step> steps) {
        return new ElementwiseProgram(inputs, steps);
    }

    public static Builder builder(int inputs) {
        return new Builder(inputs);
    }

    /** Number of operands the fused op takes. */
    public int inputs() {
        return inputs;
    }

    public List<Step> steps() {
        return steps;
    }

    /** Whether every step is defined on {@code t}. */
    public boolean accepts(DType t) {
        for (Step s : steps) {
            if (s.isUnary() ? !s.unary().accepts(t) : s.isBinary() ? !s.binary().accepts(t) : t.isComplex()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ElementwiseProgram p && p.inputs == inputs && p.steps.equals(steps);
    }

    @Override
    public int hashCode() {
        return Objects.hash(inputs, steps);
    }

    /** Whether a step is a comparison or a select (the mask forms, which not every backend's fused kernels have). */
    public boolean hasMasks() {
        for (Step s : steps) {
            if (s.isCompare() || s.isSelect()) {
                return true;
            }
        }
        return false;
    }

    /** The expression, e.g. {@code relu(add(mul(in0, in1), in2))}. */
    @Override
    public String toString() {
        return expr(inputs + steps.size() - 1);
    }

    private String expr(int v) {
        if (v < inputs) {
            return "in" + v;
        }
        Step s = steps.get(v - inputs);
        StringBuilder b = new StringBuilder(s.label()).append('(');
        for (int k = 0; k < s.arity(); k++) {
            b.append(k == 0 ? "" : ", ").append(expr(s.operand(k)));
        }
        return b.append(')').toString();
    }

    /** Builds a program step by step; each call defines the next value. */
    public static final class Builder {
        private final int inputs;
        private final List<Step> steps = new ArrayList<>();

        private Builder(int inputs) {
            this.inputs = inputs;
        }

        /** Index the next step's value will have. */
        public int next() {
            return inputs + steps.size();
        }

        public Builder unary(UnaryKind k, int a) {
            steps.add(new Step(Objects.requireNonNull(k), null, a, -1));
            return this;
        }

        public Builder binary(BinaryKind k, int a, int b) {
            steps.add(new Step(null, Objects.requireNonNull(k), a, b));
            return this;
        }

        /** A mask: {@code k(a, b)} per element. */
        public Builder compare(CompareKind k, int a, int b) {
            steps.add(Step.compare(k, a, b));
            return this;
        }

        /** {@code cond ? ifTrue : ifFalse}, {@code cond} a mask. */
        public Builder select(int cond, int ifTrue, int ifFalse) {
            steps.add(Step.select(cond, ifTrue, ifFalse));
            return this;
        }

        public ElementwiseProgram build() {
            return new ElementwiseProgram(inputs, steps);
        }
    }
}
