package dev.rlx.testkit;

import java.util.List;

/** The cases of one op family ({@code elementwise}, {@code matmul}, ...), as the harness groups them. */
public record OpFamily(String name, List<OpCase> cases) {
    public OpFamily {
        cases = List.copyOf(cases);
    }
}
