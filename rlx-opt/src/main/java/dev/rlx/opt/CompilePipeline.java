package dev.rlx.opt;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphVerificationException;
import dev.rlx.ir.GraphVerifier;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.opt.decompose.Decompose;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The ordered passes a graph goes through before a backend lowers it. Every pass runs on the graph and, inside
 * out, on the bodies of its If/While/Scan nodes, so a body is optimised like any graph. The graph is verified
 * before the first pass and after the last; a failure is traced back to the pass that made it ({@link #run}).
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
     * The passes a compile runs for {@code target}. First the precision policy (so fusion sees final dtypes).
     * Then, when {@code optimize}: simplification, constant folding (when an evaluator is given), common
     * subexpressions, dead code, written-out layer norms, attention and erf GELUs fused, transposes folded into
     * matmuls, residual + norm fusion (each only into kinds the target may claim). Always: every node the target
     * refuses is decomposed into ones it claims ({@link Decompose}). When {@code optimize}: common subexpressions
     * again, element-wise / matmul-epilogue fusion over the result, what the target refuses of that decomposed
     * again, and dead code.
     */
    public static CompilePipeline standard(PrecisionPolicy precision, boolean optimize, Capabilities target,
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
            if (target.mayClaim(OpKind.LAYER_NORM)) {
                p.add(new LayerNormFusion());
                p.add(new DeadCodeElimination());
            }
            if (target.mayClaim(OpKind.ATTENTION)) {
                p.add(new AttentionFusion());
                p.add(new DeadCodeElimination());
            }
            if (target.claims(new Op.Unary(UnaryKind.GELU), List.of(Shape.of(DType.F32)))) {
                p.add(new GeluFusion());
                p.add(new DeadCodeElimination());
            }
            p.add(new TransposeFolding());
            p.add(new DeadCodeElimination());
            if (target.mayClaim(OpKind.ADD_NORM)) {
                p.add(new AddNormFusion());
            }
        }
        p.add(new Decompose(target));
        if (optimize) {
            // Decompositions repeat small constants and reductions (attention's row max feeds both the softmax
            // and the check for fully masked rows): merge them before fusing.
            p.add(new CommonSubexpressionElimination());
            p.add(new ElementwiseFusion(target));
            p.add(new Decompose(target)); // a fused program may hold a step the target refuses
            p.add(new DeadCodeElimination());
        }
        return new CompilePipeline(p);
    }

    /**
     * Only the precision policy's re-typing (nothing when it keeps F32): what decides the dtypes a backend is
     * asked to claim, without optimising.
     */
    public static CompilePipeline precisionOnly(PrecisionPolicy precision) {
        return new CompilePipeline(precision.half() != null ? List.of(new PrecisionRewrite(precision)) : List.of());
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

    /**
     * Runs every pass; {@code afterEach} sees each pass and its result (for tracing). The graph is verified in full
     * before the first pass and after the last, and its structure ({@link GraphVerifier#verifyStructure}) after
     * each pass, so no pass walks a broken graph. Re-running every op's shape rule after every pass cost more than
     * the passes themselves on large graphs: when the final check fails, the passes are run again with the full
     * check after each, to name the pass at fault.
     */
    public Graph run(Graph g, BiConsumer<Pass, Graph> afterEach) {
        GraphVerifier.verify(g);
        if (passes.isEmpty()) {
            return g;
        }
        Graph cur = g;
        for (Pass p : passes) {
            try {
                cur = applyDeep(p, cur);
            } catch (GraphVerificationException | dev.rlx.ir.ShapeException e) {
                throw blame(g, e); // perhaps an earlier pass left a shape its rule no longer gives
            }
            try {
                GraphVerifier.verifyStructure(cur);
            } catch (GraphVerificationException e) {
                throw afterPass(p, cur, e);
            }
            afterEach.accept(p, cur);
        }
        try {
            GraphVerifier.verify(cur);
        } catch (GraphVerificationException e) {
            throw blame(g, e);
        }
        return cur;
    }

    private static GraphVerificationException afterPass(Pass p, Graph result, GraphVerificationException e) {
        return new GraphVerificationException(result.name(),
                e.errors().stream().map(err -> "after pass '" + p.name() + "': " + err).toList());
    }

    /** Reruns the passes on {@code g}, verifying after each: the first pass whose result fails is named. */
    private RuntimeException blame(Graph g, RuntimeException failure) {
        Graph cur = g;
        for (Pass p : passes) {
            cur = applyDeep(p, cur); // a pass that throws again throws here, as it did the first time
            try {
                GraphVerifier.verify(cur);
            } catch (GraphVerificationException e) {
                return afterPass(p, cur, e);
            }
        }
        return failure;
    }

    public Graph run(Graph g) {
        return run(g, (p, r) -> { });
    }

    /** {@code p} on the bodies of {@code g}'s control-flow nodes (recursively), then on {@code g}. */
    static Graph applyDeep(Pass p, Graph g) {
        return p.apply(Subgraphs.mapBodies(g, body -> applyDeep(p, body)));
    }
}
