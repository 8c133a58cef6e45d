package dev.rlx.hw;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/** The kernel's CPU list format ({@code "0-3,8,10-11"}), as in {@code /sys/.../online} and {@code shared_cpu_list}. */
final class CpuList {
    /** Sanity bound: no kernel supports more CPUs than this, so a larger number means a corrupt file. */
    static final int MAX_CPU = 1 << 16;

    private CpuList() {}

    /**
     * Parses a CPU list into sorted, distinct CPU numbers.
     *
     * @return empty when the text is blank or malformed (a half-read list is worse than none)
     */
    static Optional<List<Integer>> parse(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        TreeSet<Integer> cpus = new TreeSet<>();
        for (String part : text.trim().split(",")) {
            String[] ends = part.trim().split("-", -1);
            if (ends.length > 2) {
                return Optional.empty();
            }
            try {
                int lo = Integer.parseInt(ends[0].trim());
                int hi = ends.length == 2 ? Integer.parseInt(ends[1].trim()) : lo;
                if (lo < 0 || hi < lo || hi >= MAX_CPU) {
                    return Optional.empty();
                }
                for (int c = lo; c <= hi; c++) {
                    cpus.add(c);
                }
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.of(List.copyOf(cpus));
    }

    /** Formats CPU numbers compactly, e.g. {@code [0, 1, 2, 3, 8]} as {@code "0-3,8"}. */
    static String format(List<Integer> cpus) {
        List<Integer> sorted = new ArrayList<>(new TreeSet<>(cpus));
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < sorted.size()) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(sorted.get(i));
            if (j > i) {
                sb.append('-').append(sorted.get(j));
            }
            i = j + 1;
        }
        return sb.toString();
    }
}
