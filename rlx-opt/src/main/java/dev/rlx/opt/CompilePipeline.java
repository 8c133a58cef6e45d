package dev.rlx.opt;

import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphVerificationException;
import dev.rlx.ir.GraphVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import dev.rlx.ir.OpKind;
import java.util.function.BiConsumer;

/**
 * The ordered passes a graph goes through before a backend lowers it. The graph is verified before the
 * first pass and after every pass, so a faulty rewrite is caught at the pass that made it.
 */
public final class CompilePipeline {
    private final List<Pass> passes;

    public CompilePipeline(List<Pass> passes) {
        this.passes = List.copyOf(passes);
    }

    /** Dead-code elimination only. */
    public static CompilePipeline standard() {
        return new CompilePipeline(List.of(new DeadCodeElimination()));
    }

    /**
     * The passes a compile runs: the precision policy first (so fusion sees final dtypes), then, when
     * {@code optimize}: simplification, constant folding (when an evaluator is given), common
     * subexpressions, dead code, written-out layer norms, attention and erf GELUs fused (if the backend
     * {@code supported} LAYER_NORM, ATTENTION, UNARY),
     * transposes folded into matmuls, residual + norm fusion and element-wise / matmul-epilogue fusion (each only
     * if the backend {@code supported} the fused kind), and dead code again.
     */
    public static CompilePipeline standard(PrecisionPolicy precision, boolean optimize, Set<OpKind> supported,
                                           ConstantEvaluator evaluator) {
        List<Pass> p = new ArrayList<>();
        if (precision.half() != null) {
            p.add(new PrecisionRewrite(precision));
        }
        if (optimize) {
            p.add(new AlgebraicSimplification());
            if (evaluator != null) {
                p.add(new ConstantFolding(evaluator));
            }
            p.add(new CommonSubexpressionElimination());
            p.add(new DeadCodeElimination());
            if (supported.contains(OpKind.LAYER_NORM)) {
                p.add(new LayerNormFusion());
                p.add(new DeadCodeElimination());
            }
            if (supported.contains(OpKind.ATTENTION)) {
                p.add(new AttentionFusion());
                p.add(new DeadCodeElimination());
            }
            if (supported.contains(OpKind.UNARY)) {
                p.add(new GeluFusion());
                p.add(new DeadCodeElimination());
            }
            p.add(new TransposeFolding());
            p.add(new DeadCodeElimination());
            if (supported.contains(OpKind.ADD_NORM)) {
                p.add(new AddNormFusion());
            }
            p.add(new ElementwiseFusion(supported));
            p.add(new DeadCodeElimination());
        }
        return new CompilePipeline(p);
    }

    public List<Pass> passes() {
        return passes;
    }

    /** A pipeline with {@code pass} appended. */
    public CompilePipeline then(Pass pass) {
        List<Pass> p = new ArrayList<>(passes);
        p.add(pass);
        return new CompilePipeline(p);
    }

    /** Runs every pass; {@code afterEach} sees each pass and its result (for tracing). */
    public Graph run(Graph g, BiConsumer<Pass, Graph> afterEach) {
        GraphVerifier.verify(g);
        Graph cur = g;
        for (Pass p : passes) {
            cur = p.apply(cur);
            try {
                GraphVerifier.verify(cur);
            } catch (GraphVerificationException e) {
                throw new GraphVerificationException(cur.name(),
                        e.errors().stream().map(err -> "after pass '" + p.name() + "': " + err).toList());
            }
            afterEach.accept(p, cur);
        }
        return cur;
    }

    public Graph run(Graph g) {
        return run(g, (p, r) -> { });
    }
}
