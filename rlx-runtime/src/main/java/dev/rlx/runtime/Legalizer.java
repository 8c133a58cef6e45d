package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.runtime.spi.Backend;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Checks that a backend can run every node of a graph and its subgraphs, before anything is built. */
final class Legalizer {
    private Legalizer() {}

    static void check(Graph g, Backend backend, OpRegistry ops) {
        List<UnsupportedOpException.Offender> offenders = new ArrayList<>();
        collect(g, "", backend.supportedOps(), backend.device(), ops, offenders);
        if (!offenders.isEmpty()) {
            throw new UnsupportedOpException(backend.name(), offenders);
        }
    }

    private static void collect(Graph g, String path, Set<OpKind> supported, Device device, OpRegistry ops,
                                List<UnsupportedOpException.Offender> out) {
        for (Node n : g.nodes()) {
            String name = n.name() != null ? n.name() : n.op().label();
            if (!supported.contains(n.kind())) {
                out.add(new UnsupportedOpException.Offender(path, n.id(), n.kind(), name, null));
            } else if (n.op() instanceof Op.Custom c && ops.kernel(c.name(), device).isEmpty()) {
                out.add(new UnsupportedOpException.Offender(path, n.id(), n.kind(), name,
                        "no kernel for custom op '" + c.name() + "' on " + device));
            }
            switch (n.op()) {
                case Op.If i -> {
                    collect(i.thenBranch(), path + "%" + n.id() + ".then/", supported, device, ops, out);
                    collect(i.elseBranch(), path + "%" + n.id() + ".else/", supported, device, ops, out);
                }
                case Op.While w -> {
                    collect(w.cond(), path + "%" + n.id() + ".cond/", supported, device, ops, out);
                    collect(w.body(), path + "%" + n.id() + ".body/", supported, device, ops, out);
                }
                case Op.Scan s -> collect(s.body(), path + "%" + n.id() + ".body/", supported, device, ops, out);
                default -> { }
            }
        }
    }
}
