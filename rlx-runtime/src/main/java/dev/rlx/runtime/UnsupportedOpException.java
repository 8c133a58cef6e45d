package dev.rlx.runtime;

import dev.rlx.ir.OpKind;
import dev.rlx.ir.RlxException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A graph uses ops the target backend cannot run. Thrown at compile time, before any kernel is built, with
 * every offending node listed.
 */
public final class UnsupportedOpException extends RlxException {
    /** One node the backend cannot run: where it is, its kind and its name or label. */
    public record Offender(String path, int nodeId, OpKind kind, String name, String reason) {
        @Override
        public String toString() {
            return path + "%" + nodeId + " " + kind + " '" + name + "'" + (reason == null ? "" : " (" + reason + ")");
        }
    }

    private final String backend;
    private final List<Offender> offenders;

    public UnsupportedOpException(String backend, List<Offender> offenders) {
        super("backend " + backend + " cannot run " + offenders.size() + " node" + (offenders.size() == 1 ? "" : "s")
                + " of kind" + (kinds(offenders).size() == 1 ? " " : "s ") + kinds(offenders) + ":\n  "
                + offenders.stream().map(Offender::toString).collect(Collectors.joining("\n  "))
                + "\nrewrite these ops upstream, register a kernel for custom ops (OpRegistry), or compile for a"
                + " device whose backend supports them");
        this.backend = backend;
        this.offenders = List.copyOf(offenders);
    }

    private static List<OpKind> kinds(List<Offender> offenders) {
        return offenders.stream().map(Offender::kind).distinct().sorted().toList();
    }

    public String backend() {
        return backend;
    }

    public List<Offender> offenders() {
        return offenders;
    }
}
