package dev.rlx.bench;

import java.util.ArrayList;
import java.util.List;

/** One row of the CPU suite, built: an RLX graph and a peer doing the same work ({@link Info}). */
final class CpuSuiteCase implements AutoCloseable {
    /**
     * What a call does, per unit of rate: {@code GFLOP} (compute) or {@code GB} (bytes read and written); {@code MS}
     * for whole-model cases, reported as milliseconds per call ({@code work} 1).
     */
    enum Unit { GFLOP, GB, MS }

    /** What a case is, without building it: {@code work} is one call's, in {@code unit}s. */
    record Info(String op, String shape, Unit unit, double work, String peer) {}

    final Info info;
    final Runnable rlx;
    final Runnable peer;
    private final List<AutoCloseable> resources = new ArrayList<>();

    CpuSuiteCase(Info info, Runnable rlx, Runnable peer) {
        this.info = info;
        this.rlx = rlx;
        this.peer = peer;
    }

    /** Closes {@code r} with the case (last added, first closed). */
    <T extends AutoCloseable> T own(T r) {
        resources.add(r);
        return r;
    }

    @Override
    public void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }
}
