package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EmbedCommandTest {
    private static final List<String> TEXTS = List.of("A man is playing a guitar.", "Someone plays the guitar.",
            "The stock market fell sharply today.");

    @Test
    @SuppressWarnings("unchecked")
    void json_givesTheEmbedderVectorsAndTheirCosines() {
        Cli r = Cli.run(new EmbedCommand(), "--json", TEXTS.get(0), TEXTS.get(1), TEXTS.get(2));
        assertEquals(0, r.exit(), r.err());
        Map<String, Object> doc = (Map<String, Object>) JsonTree.parse(r.out());
        assertEquals("fp32", doc.get("variant"));
        List<Map<String, Object>> texts = (List<Map<String, Object>>) doc.get("texts");
        assertEquals(3, texts.size());
        float[][] expected;
        try (Session s = new Session(Device.CPU); SentenceEmbedder e = SentenceEmbedder.of(MiniLm.FP32, s)) {
            expected = e.embed(TEXTS);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(TEXTS.get(i), texts.get(i).get("text"));
            List<Number> v = (List<Number>) texts.get(i).get("embedding");
            float[] got = new float[v.size()];
            for (int d = 0; d < got.length; d++) {
                got[d] = v.get(d).floatValue();
            }
            assertArrayEquals(expected[i], got, 1e-6f, "text " + i);
        }
        List<List<Number>> sim = (List<List<Number>>) doc.get("similarity");
        for (int i = 0; i < 3; i++) {
            assertEquals(1.0, sim.get(i).get(i).doubleValue(), 1e-5);
            for (int j = 0; j < 3; j++) {
                assertEquals(SentenceEmbedder.cosine(expected[i], expected[j]), sim.get(i).get(j).doubleValue(), 1e-6);
            }
        }
        // the two guitar sentences are closer to each other than to the market one
        assertTrue(sim.get(0).get(1).doubleValue() > sim.get(0).get(2).doubleValue() + 0.3, sim.toString());
    }

    @Test
    void text_printsEveryComponentAndTheMatrix() {
        Cli r = Cli.run(new EmbedCommand(), TEXTS.get(0), TEXTS.get(2));
        assertEquals(0, r.exit(), r.err());
        String[] parts = r.out().split("cosine similarity");
        assertEquals(2, parts.length, r.out());
        long numbers = parts[0].lines().filter(l -> !l.startsWith("[")).flatMap(l -> List.of(l.trim().split("\\s+")).stream())
                .filter(w -> !w.isEmpty()).count();
        assertEquals(2L * MiniLm.DIM, numbers);
        assertTrue(r.out().contains("\"" + TEXTS.get(0) + "\" (9 tokens)"), r.out());
        assertTrue(r.err().contains("all-MiniLM-L6-v2 fp32"), r.err());
    }

    @Test
    void badMaxLength_isRefusedWithTheRange() {
        Cli r = Cli.run(new EmbedCommand(), "--max-length", "1", "hello");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--max-length must be 2..512 but is 1"), r.err());
    }
}
