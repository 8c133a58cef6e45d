package dev.rlx.ir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Element counts, byte sizes and strides against BigInteger arithmetic. */
class ShapePropertiesTest {

    @Provide
    Arbitrary<int[]> dims() {
        Arbitrary<Integer> dim = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(0, 5)),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(1 << 10, 1 << 20)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(1 << 28, Integer.MAX_VALUE)));
        return dim.array(int[].class).ofMaxSize(6);
    }

    @Property(tries = 500)
    void shape_countsMatchBigInteger_orOverflowIsRejected(@ForAll("dims") int[] dims, @ForAll DType dtype) {
        BigInteger count = BigInteger.ONE;
        for (int d : dims) {
            count = count.multiply(BigInteger.valueOf(d));
        }
        BigInteger bytes = count.multiply(BigInteger.valueOf(dtype.byteSize()));
        BigInteger max = BigInteger.valueOf(Long.MAX_VALUE);
        if (bytes.compareTo(max) <= 0) {
            Shape s = Shape.of(dtype, dims);
            assertEquals(count.longValueExact(), s.elementCount());
            assertEquals(bytes.longValueExact(), s.byteSize());
            long[] strides = s.strides();
            for (int i = 0; i < dims.length; i++) {
                BigInteger after = BigInteger.ONE;
                for (int j = i + 1; j < dims.length; j++) {
                    after = after.multiply(BigInteger.valueOf(dims[j]));
                }
                if (after.bitLength() < 64) { // a zero dim earlier can leave later products past a long
                    assertEquals(after.longValueExact(), strides[i], "stride " + i);
                }
            }
        } else {
            ShapeException e = assertThrows(ShapeException.class, () -> Shape.of(dtype, dims));
            assertEquals(true, e.getMessage().startsWith("[shape] ") && e.getMessage().contains("overflows"),
                    e.getMessage());
        }
    }

    @Property(tries = 200)
    void shape_equalsIsByDtypeAndDims(@ForAll("small") int[] a, @ForAll("small") int[] b, @ForAll DType ta,
                                      @ForAll DType tb) {
        Shape x = Shape.of(ta, a);
        Shape y = Shape.of(tb, b);
        boolean same = ta == tb && java.util.Arrays.equals(a, b);
        assertEquals(same, x.equals(y));
        if (same) {
            assertEquals(x.hashCode(), y.hashCode());
            assertEquals(x.toString(), y.toString());
        }
        assertArrayEquals(a, x.dims());
    }

    @Provide
    Arbitrary<int[]> small() {
        return Arbitraries.integers().between(0, 2).array(int[].class).ofMaxSize(3);
    }
}
