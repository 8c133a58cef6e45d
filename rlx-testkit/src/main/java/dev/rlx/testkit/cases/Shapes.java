package dev.rlx.testkit.cases;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import java.util.Arrays;
import java.util.stream.Collectors;

/** Short spellings for the catalog: shapes and the {@code 7x13} form names use. */
final class Shapes {
    private Shapes() {}

    static Shape f32(int... dims) {
        return Shape.of(DType.F32, dims);
    }

    static Shape of(DType t, int... dims) {
        return Shape.of(t, dims);
    }

    /** {@code 7x13}; {@code scalar} for no dims. */
    static String dims(int... dims) {
        return dims.length == 0 ? "scalar" : Arrays.stream(dims).mapToObj(Integer::toString).collect(Collectors.joining("x"));
    }

    /** The dtype as names spell it: {@code f32}. */
    static String t(DType t) {
        return t.label();
    }
}
