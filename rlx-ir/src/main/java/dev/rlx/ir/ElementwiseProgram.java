package dev.rlx.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A straight-line program of element-wise steps: the body of a fused element-wise kernel. Values are
 * numbered: {@code 0 .. inputs-1} are the fused op's operands (broadcast together, NumPy rules), then step
 * {@code i} defines value {@code inputs + i}. The last step is the result. Immutable, with value equality.
 *
 * <pre>{@code
 * // relu(in0 * in1 + in2)
 * ElementwiseProgram p = ElementwiseProgram.builder(3)
 *     .binary(BinaryKind.MUL, 0, 1).binary(BinaryKind.ADD, 3, 2).unary(UnaryKind.RELU, 4).build();
 * }</pre>
 */
public final class ElementwiseProgram {
    /**
     * One step: {@code unary(a)} when {@code binary} is null, else {@code binary(a, b)}. Operands refer to
     * earlier values only.
     */
    public record Step(UnaryKind unary, BinaryKind binary, int a, int b) {
        public Step {
            if ((unary == null) == (binary == null)) {
                throw new IllegalArgumentException("a step is either unary or binary");
            }
        }

        public boolean isUnary() {
            return unary != null;
        }

        public String label() {
            return isUnary() ? unary.label() : binary.label();
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
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            int defined = inputs + i;
            if (s.a() < 0 || s.a() >= defined || (!s.isUnary() && (s.b() < 0 || s.b() >= defined))) {
                throw new IllegalArgumentException("step " + i + " (" + s.label() + ") refers to a value not defined before it: "
                        + s.a() + (s.isUnary() ? "" : ", " + s.b()) + " (defined: 0.." + (defined - 1) + ")");
            }
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
            if (s.isUnary() ? !s.unary().accepts(t) : !s.binary().accepts(t)) {
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
        return s.label() + "(" + expr(s.a()) + (s.isUnary() ? "" : ", " + expr(s.b())) + ")";
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

        public ElementwiseProgram build() {
            return new ElementwiseProgram(inputs, steps);
        }
    }
}
