package dev.rlx.runtime.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import java.lang.foreign.ValueLayout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BytesWeightLoaderTest {
    @Test
    void add_duplicateName_isRejectedAndTheFirstKept() {
        BytesWeightLoader l = BytesWeightLoader.of(Map.of()).add("w", Shape.of(DType.U8, 2), new byte[] {1, 2});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> l.add("w", Shape.of(DType.U8, 1), new byte[] {9}));
        assertTrue(e.getMessage().contains("'w'"), e.getMessage());
        assertEquals(List.of("w"), l.names());
        assertArrayEquals(new byte[] {1, 2}, l.tensor("w").orElseThrow().data().toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void add_byteCountNotMatchingTheShape_isRejected() {
        BytesWeightLoader l = BytesWeightLoader.of(Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> l.add("w", Shape.of(DType.F32, 2, 3), new byte[20]));
        assertTrue(e.getMessage().contains("'w'") && e.getMessage().contains("f32[2,3]")
                && e.getMessage().contains("24 bytes") && e.getMessage().contains("20"), e.getMessage());
        assertEquals(List.of(), l.names());
        assertThrows(IllegalArgumentException.class, () -> l.add("v", Shape.of(DType.F16, 2), new byte[5]));
    }

    @Test
    void of_keepsInsertionOrderShapesAndBytes() {
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("z", Tensor.of(new float[] {1, 2}, 2));
        m.put("a", Tensor.of(new long[] {3}, 1, 1));
        m.put("m", Tensor.of(new boolean[] {true}, 1));
        BytesWeightLoader l = BytesWeightLoader.of(m);
        assertEquals(List.of("z", "a", "m"), l.names());
        for (var e : m.entrySet()) {
            WeightTensor t = l.tensor(e.getKey()).orElseThrow();
            assertEquals(e.getValue().shape(), t.shape());
            assertArrayEquals(e.getValue().bytes(), t.data().toArray(ValueLayout.JAVA_BYTE));
            assertTrue(t.data().isReadOnly());
        }
        assertTrue(l.tensor("missing").isEmpty());
        l.close();
    }

    @Test
    void add_copiesTheBytes() {
        byte[] src = {1, 2, 3, 4};
        BytesWeightLoader l = BytesWeightLoader.of(Map.of()).add("w", Shape.of(DType.I32, 1), src);
        src[0] = 99;
        assertEquals(0x04030201, l.tensor("w").orElseThrow().data().get(ValueLayout.JAVA_INT_UNALIGNED, 0));
    }
}
