package dev.rlx.cpu.kernels;

import java.util.List;

/** Small kernel combinators. */
public final class Kernels {
    private Kernels() {}

    /** Runs {@code parts} in order as one kernel. */
    public static Kernel sequence(List<Kernel> parts) {
        Kernel[] k = parts.toArray(Kernel[]::new);
        if (k.length == 1) {
            return k[0];
        }
        return () -> {
            for (Kernel p : k) {
                p.run();
            }
        };
    }

    /** A kernel that does nothing (e.g. an op over zero elements). */
    public static final Kernel NONE = () -> { };
}
