package dev.rlx.llm.reference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.model.SyntheticLlama;
import dev.rlx.llm.tokenizer.Tokenizer;
import dev.rlx.llm.tokenizer.TokenizerTestTexts;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RLX's token ids equal llama.cpp's on the multilingual text set, for a SentencePiece vocabulary and the two
 * byte-level BPE pre-tokenizers, all generated into small synthetic models (llama.cpp only tokenizes for a model
 * it has loaded). The binding's {@code encode} adds no BOS and parses special tokens, so RLX is called the same way.
 */
class TokenizerParityTest {
    @ParameterizedTest
    @ValueSource(strings = {"spm", "llama-bpe", "qwen2", "smollm", "gpt-2", "default"})
    void idsEqualLlamaCpp(String vocab, @TempDir Path dir) throws Exception {
        SyntheticLlama spec = new SyntheticLlama(vocab.equals("qwen2") ? "qwen2" : "llama", vocab,
                vocab.equals("spm") ? 600 : 300, 64, 1, 2, 1, 128, 256, GgmlType.F32, false, 0, 1);
        Path model = dir.resolve(vocab + ".gguf");
        spec.write(model);
        List<String> texts = TokenizerTestTexts.ALL;
        List<int[]> want = LlamaCpp.tokenize(model, texts, dir);
        try (GgufFile f = GgufFile.open(model)) {
            Tokenizer tk = Tokenizer.fromGguf(f.metadata());
            assertEquals(texts.size(), want.size());
            for (int i = 0; i < texts.size(); i++) {
                int[] got = tk.encode(texts.get(i), false, true);
                assertArrayEquals(want.get(i), got, vocab + " text " + i + " '" + texts.get(i) + "': llama.cpp "
                        + Arrays.toString(want.get(i)) + " RLX " + Arrays.toString(got));
            }
        }
    }
}
