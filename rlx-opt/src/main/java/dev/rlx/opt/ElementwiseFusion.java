package dev.rlx.opt;

import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Element-wise fusion: a tree of f32 unary and binary ops whose inner results have no other use becomes one
 * {@link Op.Fused} kernel, one pass over memory. A {@code where} over f32 joins the tree when its condition is an f32
 * comparison used only there (the comparison becomes a mask step, the where a select): exporters write LeakyRelu,
 * Elu, ThresholdedRelu and Shrink that way, three to five kernels each before. When one of the tree's operands is an f32 matmul used only
 * there and the tree keeps the matmul's shape, the matmul absorbs the tree as its epilogue
 * ({@link Op.FusedMatMul}): bias, activation and residual applied while each output block is in cache.
 *
 * <p>Only kinds the backend supports are produced. Trees are grown from the last op backwards, up to
 * {@link #MAX_STEPS} ops.
 */
public final class ElementwiseFusion implements Pass {
    static final int MAX_STEPS = 24;

    private final boolean fuseChains;
    private final boolean fuseMatMul;

    /** Produces only the fused kinds {@code target} may claim. */
    public ElementwiseFusion(Capabilities target) {
        this.fuseChains = target.mayClaim(OpKind.FUSED);
        this.fuseMatMul = target.mayClaim(OpKind.FUSED_MATMUL);
    }

    @Override
    public String name() {
        return "fuse_elementwise";
    }

    /** A fusion decision: the ops (in order), the root, its operands, and an absorbed matmul if any. */
    private record Region(List<Node> nodes, Node root, List<Value> operands, Node matmul) {}

    @Override
    public Graph apply(Graph g) {
        if (!fuseChains && !fuseMatMul) {
            return g;
        }
        Uses uses = new Uses(g);
        Map<Node, Region> byRoot = new HashMap<>();
        boolean[] absorbed = new boolean[g.size()];
        for (int id = g.size() - 1; id >= 0; id--) {
            Node n = g.node(id);
            if (absorbed[id] || !fusible(n, uses, absorbed)) {
                continue;
            }
            Region region = grow(n, uses, absorbed);
            boolean useful = region.matmul() != null ? fuseMatMul : fuseChains && region.nodes().size() >= 2;
            if (!useful && region.matmul() != null && fuseChains && region.nodes().size() >= 2) {
                region = new Region(region.nodes(), n, region.operands(), null); // keep the chain, not the matmul
                useful = true;
            }
            if (useful) {
                for (Node m : region.nodes()) {
                    absorbed[m.id()] = true;
                }
                if (region.matmul() != null) {
                    absorbed[region.matmul().id()] = true;
                }
                byRoot.put(n, region);
            }
        }
        if (byRoot.isEmpty()) {
            return g;
        }
        return Rewriter.rewrite(g, (n, r) -> {
            Region region = byRoot.get(n);
            if (region != null) {
                r.replace(n.output(), emit(region, r));
            } else if (absorbed[n.id()]) {
                r.drop(n);
            } else {
                r.copy(n);
            }
        });
    }

    /** An op with an f32 result that can be a step (a where only with its mask: {@link #maskOf}). */
    private static boolean fusible(Node n, Uses uses, boolean[] absorbed) {
        if (n.outputs().size() != 1 || n.shape().dtype() != DType.F32) {
            return false;
        }
        if (n.op() instanceof Op.Where) {
            Node mask = maskOf(n, uses, absorbed);
            return mask != null && n.inputs().get(1).dtype() == DType.F32;
        }
        return allF32(n) && (n.op() instanceof Op.Unary || n.op() instanceof Op.Binary);
    }

    /** The condition of where {@code n} when it can be a mask step: an f32 comparison with no other use. */
    private static Node maskOf(Node n, Uses uses, boolean[] absorbed) {
        Value cond = n.inputs().get(0);
        Node c = cond.node();
        return c.op() instanceof Op.Compare && c.outputs().size() == 1 && allF32(c) && uses.of(cond) == 1
                && !absorbed[c.id()] ? c : null;
    }

    private static boolean allF32(Node n) {
        for (Value v : n.inputs()) {
            if (v.dtype() != DType.F32) {
                return false;
            }
        }
        return true;
    }

    /** Grows the tree rooted at {@code root} through single-use fusible producers. */
    private static Region grow(Node root, Uses uses, boolean[] absorbed) {
        TreeSet<Integer> members = new TreeSet<>();
        members.add(root.id());
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.add(root);
        if (root.op() instanceof Op.Where) {
            Node mask = maskOf(root, uses, absorbed);
            members.add(mask.id());
            todo.add(mask);
        }
        while (!todo.isEmpty() && members.size() < MAX_STEPS) {
            Node n = todo.poll();
            for (Value v : n.inputs()) {
                Node p = v.node();
                if (members.contains(p.id()) || absorbed[p.id()] || uses.of(v) != 1 || !fusible(p, uses, absorbed)) {
                    continue;
                }
                boolean where = p.op() instanceof Op.Where;
                if (members.size() + (where ? 2 : 1) > MAX_STEPS) {
                    continue;
                }
                members.add(p.id());
                todo.add(p);
                if (where) { // a where comes with its mask: a program's operands are f32 values
                    Node mask = maskOf(p, uses, absorbed);
                    members.add(mask.id());
                    todo.add(mask);
                }
            }
        }
        Graph g = root.outputs().get(0).graph();
        List<Node> nodes = new ArrayList<>();
        for (int id : members) {
            nodes.add(g.node(id));
        }
        LinkedHashMap<Value, Integer> operands = new LinkedHashMap<>();
        for (Node n : nodes) {
            for (Value v : n.inputs()) {
                if (!members.contains(v.nodeId())) {
                    operands.putIfAbsent(v, operands.size());
                }
            }
        }
        Node matmul = null;
        for (Value v : operands.keySet()) {
            Node p = v.node();
            if (p.op() instanceof Op.MatMul && !absorbed[p.id()] && uses.of(v) == 1 && v.dtype() == DType.F32
                    && p.inputs().get(0).rank() >= 2 && p.inputs().get(1).rank() >= 2 && v.shape().equals(root.shape())) {
                matmul = p;
                break;
            }
        }
        return new Region(nodes, root, List.copyOf(operands.keySet()), matmul);
    }

    private static Value emit(Region region, Rewriter r) {
        // Program operand order: the absorbed matmul result first (the epilogue's input 0), then the rest.
        List<Value> operands = new ArrayList<>();
        if (region.matmul() != null) {
            operands.add(region.matmul().output());
        }
        for (Value v : region.operands()) {
            if (!operands.contains(v)) {
                operands.add(v);
            }
        }
        Map<Value, Integer> index = new HashMap<>();
        for (int i = 0; i < operands.size(); i++) {
            index.put(operands.get(i), i);
        }
        ElementwiseProgram.Builder b = ElementwiseProgram.builder(operands.size());
        for (Node n : region.nodes()) {
            int x = index.get(n.inputs().get(0));
            switch (n.op()) {
                case Op.Unary u -> b.unary(u.op(), x);
                case Op.Binary bin -> b.binary(bin.op(), x, index.get(n.inputs().get(1)));
                case Op.Compare c -> b.compare(c.op(), x, index.get(n.inputs().get(1)));
                case Op.Where w -> b.select(x, index.get(n.inputs().get(1)), index.get(n.inputs().get(2)));
                default -> throw new IllegalStateException("not fusible: " + n);
            }
            index.put(n.output(), b.next() - 1);
        }
        ElementwiseProgram program = b.build();
        if (region.matmul() != null) {
            List<Value> in = new ArrayList<>(r.get(region.matmul().inputs()));
            in.addAll(r.get(operands.subList(1, operands.size())));
            Op.MatMul mm = (Op.MatMul) region.matmul().op();
            return r.emit(new Op.FusedMatMul(program, mm.transA(), mm.transB()), in).get(0);
        }
        return r.emit(new Op.Fused(program), r.get(operands)).get(0);
    }
}
