package dev.rlx.onnx.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Sentence embeddings from the fp32 MiniLM: pooling, normalisation, batching, similarity. */
class SentenceEmbedderTest {
    private static Session session;
    private static SentenceEmbedder embedder;

    @BeforeAll
    static void open() {
        session = new Session(Device.CPU);
        embedder = SentenceEmbedder.of(MiniLm.FP32, session);
    }

    @AfterAll
    static void close() {
        embedder.close();
        session.close();
    }

    @Test
    void embed_batchIsUnitLength_andRanksRelatedSentencesHigher() {
        float[][] v = embedder.embed(List.of("A man is eating food.", "A man is eating a piece of bread.",
                "The girl is carrying a baby.", "A man is riding a horse."));
        assertEquals(4, v.length);
        for (float[] e : v) {
            assertEquals(MiniLm.DIM, e.length);
            double n = 0;
            for (float x : e) {
                n += x * x;
            }
            assertEquals(1, Math.sqrt(n), 1e-5);
        }
        double bread = SentenceEmbedder.cosine(v[0], v[1]);
        // sentence-transformers' semantic-search example prints 0.7553 for this pair with all-MiniLM-L6-v2
        assertEquals(0.7553, bread, 0.002);
        assertTrue(bread > SentenceEmbedder.cosine(v[0], v[2]) + 0.3, "food/bread vs food/baby");
        assertTrue(bread > SentenceEmbedder.cosine(v[0], v[3]), "food/bread vs food/horse");
    }

    @Test
    void embed_paddingInABatchDoesNotChangeAnEmbedding() {
        float[] alone = embedder.embed(List.of("Short one."))[0];
        float[] batched = embedder.embed(List.of("Short one.", "A much longer sentence that needs padding for the first."))[0];
        assertArrayEquals(alone, batched, 1e-5f);
    }

    @Test
    void pool_averagesMaskedPositionsOnly_thenNormalises() {
        float[] hidden = {3, 0, 3, 8, 100, 100}; // [1 batch, 3 tokens, 2 dims]; the last token is padding
        float[][] p = SentenceEmbedder.pool(hidden, new long[] {1, 1, 0}, 1, 3, 2);
        assertArrayEquals(new float[] {0.6f, 0.8f}, p[0], 1e-6f); // mean (3, 4), length 5
    }

    @Test
    void embed_emptyListGivesNothing() {
        assertEquals(0, embedder.embed(List.of()).length);
    }

    @Test
    void cosine_differentLengthsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> SentenceEmbedder.cosine(new float[2], new float[3]));
        assertEquals(-1, SentenceEmbedder.cosine(new float[] {1, 0}, new float[] {-2, 0}), 1e-12);
    }
}
