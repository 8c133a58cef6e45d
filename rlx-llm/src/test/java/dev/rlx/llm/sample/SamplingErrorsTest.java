package dev.rlx.llm.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Bad logits and parameters are a SamplingException naming the argument and the index at fault. */
class SamplingErrorsTest {
    private static SamplerChain dist() {
        return SamplerChain.of(List.of(Samplers.dist(7)), false);
    }

    @Test
    void sample_nanLogit_namesItsIndex() {
        SamplingException e = assertThrows(SamplingException.class, () -> dist().sample(new float[] {0f, 1f, Float.NaN}));
        assertEquals("logits", e.argument());
        assertEquals(2, e.index());
    }

    @Test
    void sample_positiveInfinity_namesTheToken() {
        SamplingException e = assertThrows(SamplingException.class,
                () -> dist().sample(new float[] {0f, Float.POSITIVE_INFINITY, 1f}));
        assertEquals("logits", e.argument());
        assertEquals(1, e.index());
        SamplingException all = assertThrows(SamplingException.class, () -> dist().sample(
                new float[] {Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY}));
        assertTrue(all.getMessage().contains("every logit is -inf"), all.getMessage());
    }

    @Test
    void sample_emptyOrNullLogits_isRefused() {
        assertEquals("logits", assertThrows(SamplingException.class, () -> dist().sample(new float[0])).argument());
        assertEquals("logits", assertThrows(SamplingException.class, () -> dist().sample(null)).argument());
    }

    @Test
    void factory_nanParameter_namesIt() {
        SamplingException e = assertThrows(SamplingException.class, () -> Samplers.temperature(Float.NaN));
        assertTrue(e.getMessage().contains("NaN"), e.getMessage());
    }
}
