package dev.rlx.runtime.random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The port against the C library's own {@code logf}, called through FFM. Run on glibc (Linux): other C
 * libraries use other algorithms. During development the port was compared with glibc 2.36 on every float
 * in (0, 1] (1,065,353,216 values, no difference); this test covers a stride of that range plus specials.
 */
class GlibcLogfTest {

    @Test
    void logf_matchesTheNativeLogfBitForBit() throws Throwable {
        assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"), "glibc's logf is Linux's");
        Linker linker = Linker.nativeLinker();
        Optional<java.lang.foreign.MemorySegment> sym = linker.defaultLookup().find("logf");
        assumeTrue(sym.isPresent(), "no logf in the default C library");
        MethodHandle logf = linker.downcallHandle(sym.get(),
                FunctionDescriptor.of(ValueLayout.JAVA_FLOAT, ValueLayout.JAVA_FLOAT));
        // Every 97th float from the smallest subnormal up to 2^64, then the special values.
        for (int bits = 1; bits < 0x5f800000; bits += 97) {
            float x = Float.intBitsToFloat(bits);
            assertBits((float) logf.invokeExact(x), GlibcLogf.logf(x), x);
        }
        for (float x : new float[] {0f, -0f, 1f, -1f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
                Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE}) {
            assertBits((float) logf.invokeExact(x), GlibcLogf.logf(x), x);
        }
    }

    private static void assertBits(float expected, float actual, float x) {
        if (Float.isNaN(expected)) {
            assertEquals(Float.NaN, actual, "logf(" + x + ")");
            return;
        }
        assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(actual), () -> "logf(" + x + ") = "
                + expected + " but the port gives " + actual);
    }
}
