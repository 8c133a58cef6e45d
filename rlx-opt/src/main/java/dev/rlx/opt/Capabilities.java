package dev.rlx.opt;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a compile target runs, decided per node: by op kind, by the dtype of its data and, where it matters, by
 * its attributes. The pipeline decomposes the nodes a target refuses into ones it claims
 * ({@link dev.rlx.opt.decompose.Decompose}), fusion passes only build kinds the target {@link #mayClaim}, and
 * the runtime rejects whatever is still refused, with the reason this gives. Implementations are immutable
 * and thread-safe.
 */
public interface Capabilities {
    /**
     * Null when the target runs {@code op} on operands of shapes {@code inputs}; otherwise why not, in a few
     * words that complete "cannot run node %3 matmul: ...", e.g. {@code "no f64 kernel"}.
     */
    String refusal(Op op, List<Shape> inputs);

    /** Whether some node of {@code kind} may be claimed: passes skip fusions into kinds never claimed. */
    boolean mayClaim(OpKind kind);

    /**
     * A description that is the same for equal claims in every process (compile caches key on it): the claim
     * table, with rules by name.
     */
    String describe();

    /** Null when the target runs {@code n}, else the reason. */
    default String refusal(Node n) {
        return refusal(n.op(), shapes(n.inputs()));
    }

    default boolean claims(Node n) {
        return refusal(n) == null;
    }

    default boolean claims(Op op, List<Shape> inputs) {
        return refusal(op, inputs) == null;
    }

    /** What both this and {@code other} claim (the first refusal's reason wins). */
    default Capabilities and(Capabilities other) {
        Capabilities self = this;
        return new Capabilities() {
            @Override
            public String refusal(Op op, List<Shape> inputs) {
                String r = self.refusal(op, inputs);
                return r != null ? r : other.refusal(op, inputs);
            }

            @Override
            public boolean mayClaim(OpKind kind) {
                return self.mayClaim(kind) && other.mayClaim(kind);
            }

            @Override
            public String describe() {
                return "(" + self.describe() + ") and (" + other.describe() + ")";
            }
        };
    }

    /** Claims every node (the CPU backend, and evaluators that run everything). */
    static Capabilities all() {
        return All.INSTANCE;
    }

    /** Claims exactly the {@link Primitives}: a target with only these runs every graph after decomposition. */
    static Capabilities primitives() {
        return builder().claimPrimitives().build();
    }

    /** Claims every node of the given kinds. */
    static Capabilities ofKinds(Set<OpKind> kinds) {
        Builder b = builder();
        for (OpKind k : kinds) {
            b.claim(k);
        }
        return b.build();
    }

    static Builder builder() {
        return new Builder();
    }

    /** The input shapes of {@code values}. */
    static List<Shape> shapes(List<Value> values) {
        List<Shape> s = new ArrayList<>(values.size());
        for (Value v : values) {
            s.add(v.shape());
        }
        return s;
    }

    /** A refusal within a claimed kind, as a backend states it. */
    @FunctionalInterface
    interface Rule {
        /** Null to claim {@code op} on {@code inputs}, else the reason it is refused. */
        String refusal(Op op, List<Shape> inputs);
    }

    /** A rule with the name {@link #describe()} gives it. */
    record NamedRule(String name, Rule rule) {}

    /**
     * Builds a claim table: kinds claimed (optionally only for some dtypes of the node's data, the dtype of its
     * first operand or, for sources, of the value itself), each with optional extra rules on attributes.
     * Unary composites ({@link Primitives#COMPOSITE_UNARY}) count as claimed by a {@code UNARY} claim only when
     * {@link #claimCompositeUnary} says so.
     */
    final class Builder {
        private final Map<OpKind, Set<DType>> kinds = new EnumMap<>(OpKind.class);
        private final Map<OpKind, List<NamedRule>> rules = new EnumMap<>(OpKind.class);
        private boolean compositeUnary;

        private Builder() {}

        /** Claims every node of {@code kind}. */
        public Builder claim(OpKind kind) {
            kinds.put(kind, EnumSet.allOf(DType.class));
            return this;
        }

        /**
         * Claims nodes of {@code kind} whose data dtype is one of the given ones, replacing an earlier claim of the
         * kind (so {@code claimPrimitives().claim(MATMUL, F32)} narrows matmul to f32).
         */
        public Builder claim(OpKind kind, DType first, DType... more) {
            kinds.put(kind, EnumSet.of(first, more));
            return this;
        }

        /** Claims every primitive kind (composite unary functions excepted). */
        public Builder claimPrimitives() {
            for (OpKind k : Primitives.KINDS) {
                claim(k);
            }
            return this;
        }

        /** Also claims GELU, GELU_TANH, SILU and SIGMOID wherever UNARY is claimed. */
        public Builder claimCompositeUnary() {
            compositeUnary = true;
            return this;
        }

        /**
         * Adds a rule, named {@code name} in {@link Capabilities#describe()}, that can refuse nodes of a claimed
         * {@code kind} (an attribute it lacks, say).
         */
        public Builder refuse(OpKind kind, String name, Rule rule) {
            rules.computeIfAbsent(kind, k -> new ArrayList<>()).add(new NamedRule(name, rule));
            return this;
        }

        public Capabilities build() {
            return new Table(new EnumMap<>(kinds), new EnumMap<>(rules), compositeUnary);
        }
    }

    /** The claim table a {@link Builder} makes. */
    record Table(Map<OpKind, Set<DType>> kinds, Map<OpKind, List<NamedRule>> rules, boolean compositeUnary)
            implements Capabilities {
        @Override
        public String refusal(Op op, List<Shape> inputs) {
            Set<DType> dtypes = kinds.get(op.kind());
            if (dtypes == null) {
                return "no " + op.label() + " kernel";
            }
            if (!compositeUnary && op instanceof Op.Unary u && Primitives.COMPOSITE_UNARY.contains(u.op())) {
                return "no " + op.label() + " kernel";
            }
            DType t = inputs.isEmpty() ? sourceType(op) : inputs.get(0).dtype();
            if (t != null && !dtypes.contains(t)) {
                return "no " + t.label() + " " + op.label() + " kernel (it runs " + labels(dtypes) + ")";
            }
            for (NamedRule r : rules.getOrDefault(op.kind(), List.of())) {
                String why = r.rule().refusal(op, inputs);
                if (why != null) {
                    return why;
                }
            }
            return null;
        }

        @Override
        public boolean mayClaim(OpKind kind) {
            return kinds.containsKey(kind);
        }

        @Override
        public String describe() {
            StringBuilder sb = new StringBuilder("claims");
            kinds.forEach((k, ts) -> {
                sb.append(' ').append(k.label());
                if (ts.size() != DType.values().length) {
                    sb.append('[').append(labels(ts)).append(']');
                }
                for (NamedRule r : rules.getOrDefault(k, List.of())) {
                    sb.append("-{").append(r.name()).append('}');
                }
            });
            return sb.append(compositeUnary ? " +composite_unary" : "").toString();
        }

        private static DType sourceType(Op op) {
            return switch (op) {
                case Op.Input i -> i.shape().dtype();
                case Op.Param p -> p.shape().dtype();
                case Op.Constant c -> c.value().dtype();
                default -> null;
            };
        }

        private static String labels(Set<DType> ts) {
            return ts.stream().map(DType::label).reduce((a, b) -> a + ", " + b).orElse("none")
                    .toLowerCase(Locale.ROOT);
        }
    }

    /** Claims everything. */
    enum All implements Capabilities {
        INSTANCE;

        @Override
        public String refusal(Op op, List<Shape> inputs) {
            return null;
        }

        @Override
        public boolean mayClaim(OpKind kind) {
            return true;
        }

        @Override
        public String describe() {
            return "all";
        }
    }
}
