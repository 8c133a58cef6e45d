package dev.rlx.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rlx.hw.ThermalException.Kind;
import org.junit.jupiter.api.function.Executable;

/** Assertions on GPU control calls that must be refused. */
final class Refusals {
    private Refusals() {}

    /** Asserts that {@code call} throws a {@link ThermalException} of {@code kind}, and returns it. */
    static ThermalException refused(Kind kind, Executable call) {
        ThermalException e = assertThrows(ThermalException.class, call);
        assertEquals(kind, e.kind(), e.getMessage());
        return e;
    }
}
