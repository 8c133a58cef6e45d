package dev.rlx.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** DType sizes, predicates, names and promotion. */
class DTypeTest {

    @ParameterizedTest(name = "{0}: {1} bytes, kind {2}")
    @CsvSource({
            "F32, 4, float", "F16, 2, float", "BF16, 2, float", "F64, 8, float",
            "I8, 1, signed", "I16, 2, signed", "I32, 4, signed", "I64, 8, signed",
            "U8, 1, unsigned", "U32, 4, unsigned",
            "BOOL, 1, bool", "C64, 8, complex", // C64: two f32
    })
    void dtype_sizesAndPredicates(DType t, int bytes, String kind) {
        assertEquals(bytes, t.byteSize());
        assertEquals(kind.equals("float"), t.isFloat(), "isFloat");
        assertEquals(kind.equals("signed") || kind.equals("unsigned"), t.isInteger(), "isInteger");
        assertEquals(kind.equals("unsigned"), t.isUnsigned(), "isUnsigned");
        assertEquals(kind.equals("complex"), t.isComplex(), "isComplex");
        assertEquals(kind.equals("bool"), t.isBool(), "isBool");
        assertEquals(!kind.equals("bool"), t.isNumeric(), "isNumeric");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void dtype_labelParsesBack(DType t) {
        assertEquals(t.name().toLowerCase(java.util.Locale.ROOT), t.label());
        assertSame(t, DType.parse(t.label()));
        assertSame(t, DType.parse(t.name()));
        assertSame(t, DType.parse(t.label().toUpperCase(java.util.Locale.ROOT).substring(0, 1) + t.label().substring(1)));
    }

    @Test
    void dtype_parseUnknown_rejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DType.parse("float32"));
        assertTrue(e.getMessage().contains("float32"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DType.parse(""));
    }

    // ---------------------------------------------------------------- promote

    @Test
    void promote_isCommutativeAndIdempotent() {
        for (DType a : DType.values()) {
            assertSame(a, DType.promote(a, a));
            for (DType b : DType.values()) {
                assertSame(DType.promote(a, b), DType.promote(b, a), a + ", " + b);
            }
        }
    }

    /** [min, max] of each type's values, written out independently (C64: per component, as f32). */
    private static final Map<DType, BigDecimal[]> RANGE = Map.ofEntries(
            range(DType.F32, new BigDecimal(Float.MAX_VALUE)),
            range(DType.F16, new BigDecimal(65504)),                                    // (2 - 2^-10) * 2^15
            range(DType.BF16, new BigDecimal(Float.intBitsToFloat(0x7F7F0000))),        // (2 - 2^-7) * 2^127
            range(DType.F64, new BigDecimal(Double.MAX_VALUE)),
            range(DType.C64, new BigDecimal(Float.MAX_VALUE)),
            Map.entry(DType.I8, new BigDecimal[] {new BigDecimal(-128), new BigDecimal(127)}),
            Map.entry(DType.I16, new BigDecimal[] {new BigDecimal(-32768), new BigDecimal(32767)}),
            Map.entry(DType.I32, new BigDecimal[] {new BigDecimal(Integer.MIN_VALUE), new BigDecimal(Integer.MAX_VALUE)}),
            Map.entry(DType.I64, new BigDecimal[] {new BigDecimal(Long.MIN_VALUE), new BigDecimal(Long.MAX_VALUE)}),
            Map.entry(DType.U8, new BigDecimal[] {BigDecimal.ZERO, new BigDecimal(255)}),
            Map.entry(DType.U32, new BigDecimal[] {BigDecimal.ZERO, new BigDecimal(4294967295L)}),
            Map.entry(DType.BOOL, new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ONE}));

    private static Map.Entry<DType, BigDecimal[]> range(DType t, BigDecimal max) {
        return Map.entry(t, new BigDecimal[] {max.negate(), max});
    }

    private static boolean holds(DType wide, DType narrow) {
        BigDecimal[] w = RANGE.get(wide);
        BigDecimal[] n = RANGE.get(narrow);
        return w[0].compareTo(n[0]) <= 0 && w[1].compareTo(n[1]) >= 0;
    }

    @Test
    void promote_resultHoldsBothRanges_andIsCastableFromBoth() {
        for (DType a : DType.values()) {
            for (DType b : DType.values()) {
                DType p = DType.promote(a, b);
                if (a.isComplex() || b.isComplex()) {
                    // a cast from complex to a real type is rejected, so only a complex result works
                    assertSame(DType.C64, p, a + ", " + b);
                }
                if ((a == DType.F64 && b == DType.C64) || (a == DType.C64 && b == DType.F64)) {
                    continue; // see promote_f64WithC64
                }
                assertTrue(holds(p, a) && holds(p, b), "promote(" + a + ", " + b + ") = " + p + " loses range");
            }
        }
    }

    @Test
    void promote_f64WithC64_isC64_perTheDocumentedOrder() {
        // The Javadoc orders "F64 < C64", so promote gives C64 - although C64 holds f32 parts and cannot
        // hold F64's range, against the "without losing range" sentence. No wider complex type exists.
        assertSame(DType.C64, DType.promote(DType.F64, DType.C64));
        assertTrue(!holds(DType.C64, DType.F64));
    }

    @ParameterizedTest(name = "promote({0}, {1}) = {2}")
    @CsvSource({
            "F16, BF16, F32",  // neither holds the other
            "I8, F16, F32",    // F16/BF16 with an integer: F32
            "U8, BF16, F32",
            "I32, F32, F32",   // the float itself otherwise
            "U32, F32, F32",
            "I64, F16, F64",   // a 64-bit integer with a float: F64
            "I64, F32, F64",
            "F64, I8, F64",
            "U8, I8, I16",     // signed with unsigned of one width: next wider signed
            "U32, I32, I64",
            "I8, U32, I64",    // a wider unsigned cannot hold negatives
            "U8, I16, I16",    // a wider signed holds the narrower unsigned
            "U8, I32, I32",
            "I16, I64, I64",   // otherwise the wider type
            "U8, U32, U32",
            "BOOL, U8, U8",
            "BOOL, F16, F16",
            "F32, F64, F64",
            "F16, F32, F32",
            "BF16, F64, F64",
            "C64, F32, C64",
            "C64, I64, C64",
    })
    void promote_documentedCases(DType a, DType b, DType expected) {
        assertSame(expected, DType.promote(a, b));
    }
}
