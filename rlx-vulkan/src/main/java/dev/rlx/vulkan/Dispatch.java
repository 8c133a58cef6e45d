package dev.rlx.vulkan;

import java.util.List;

/**
 * One compute dispatch of a compiled graph: a pipeline, its argument block (operand addresses and integers), the
 * workgroup counts, and the byte ranges it reads and writes (for barriers).
 */
record Dispatch(long pipeline, String what, long[] ptrs, int[] ints, int groupsX, int groupsY, int groupsZ,
                List<Loc> reads, List<Loc> writes) {
    /** Workgroups of {@code local} invocations covering {@code threads}, spilling into y past 65,535 groups. */
    static int[] groups(long threads, int local) {
        long g = Math.max(1, (threads + local - 1) / local);
        if (g <= 65_535) {
            return new int[] {(int) g, 1};
        }
        return new int[] {65_535, (int) ((g + 65_534) / 65_535)};
    }
}
