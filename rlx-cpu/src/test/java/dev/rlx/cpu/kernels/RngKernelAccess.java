package dev.rlx.cpu.kernels;

/** Exposes package-private RNG helpers to tests in other packages. */
public final class RngKernelAccess {
    private RngKernelAccess() {}

    public static double cos2pi(double u) {
        return RngKernel.cos2pi(u);
    }
}
