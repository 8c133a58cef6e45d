package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.llm.engine.EngineOptions;
import dev.rlx.llm.engine.GenerationRequest;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufWriter;
import dev.rlx.llm.model.SyntheticLlama;
import dev.rlx.llm.tokenizer.ChatTemplate;
import java.util.List;
import dev.rlx.llm.tokenizer.SyntheticVocab;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rlx generate} on a tiny synthetic model: the streamed text, the speed line, typed errors. */
class GenerateCommandTest {
    @Test
    void greedyTextEqualsTheEnginesAndTheSpeedLineFollows(@TempDir Path dir) throws Exception {
        Path m = dir.resolve("tiny.gguf");
        assertEquals(0, Cli.rlx("gguf", "synth", m.toString(), "--type", "f16").exit());
        Cli r = Cli.rlx("generate", m.toString(), "Hello world", "--max-tokens", "12", "--temp", "0", "--threads",
                "1", "--kv", "q8_0");
        assertEquals(0, r.exit(), r.err());
        String expected;
        try (LlmEngine e = LlmEngine.open(m, EngineOptions.defaults().withThreads(1).withMaxSequences(1)
                .withKvStorage(dev.rlx.ir.quant.BlockFormat.Q8_0))) {
            expected = e.generate(GenerationRequest.of(e.tokenizer().encode("Hello world", true, true), 12)).text();
        }
        assertEquals(expected + System.lineSeparator(), r.out());
        assertTrue(r.err().matches("(?s)prefill \\d+ tokens in [0-9.]+ s \\([0-9.]+ tokens/s\\), decode \\d+ tokens"
                + " in [0-9.]+ s \\([0-9.]+ tokens/s\\), finish (length|stop)\\s*"), r.err());
        Cli again = Cli.rlx("generate", m.toString(), "Hello world", "--max-tokens", "12", "--temp", "0.9", "--seed",
                "7", "--threads", "1");
        Cli same = Cli.rlx("generate", m.toString(), "Hello world", "--max-tokens", "12", "--temp", "0.9", "--seed",
                "7", "--threads", "1");
        assertEquals(0, again.exit(), again.err());
        assertEquals(again.out(), same.out(), "a seed repeats the text");
    }

    @Test
    void chatWrapsThePromptInTheModelsTemplate(@TempDir Path dir) throws Exception {
        Path m = dir.resolve("chat.gguf");
        GgufWriter w = SyntheticLlama.tiny(GgmlType.F32).writer();
        w.putString("tokenizer.chat_template", "{% for m in messages %}<|im_start|>{{ m.role }}...");
        w.write(m);
        Cli r = Cli.rlx("generate", m.toString(), "hi", "--chat", "--system", "be brief", "--temp", "0",
                "--max-tokens", "4", "--threads", "1");
        assertEquals(0, r.exit(), r.err());
        String expected;
        try (LlmEngine e = LlmEngine.open(m, EngineOptions.defaults().withThreads(1).withMaxSequences(1))) {
            String text = ChatTemplate.CHATML.render(List.of(new ChatTemplate.Message("system", "be brief"),
                    new ChatTemplate.Message("user", "hi")), true, "");
            expected = e.generate(GenerationRequest.of(e.tokenizer().encode(text, true, true), 4)).text();
        }
        assertEquals(expected + System.lineSeparator(), r.out());
    }

    @Test
    void badInputGivesOneTypedLine(@TempDir Path dir) throws Exception {
        Cli missing = Cli.rlx("generate", dir.resolve("none.gguf").toString(), "hi");
        assertEquals(1, missing.exit());
        assertTrue(missing.err().startsWith("rlx generate: ") && missing.err().contains("no such file"),
                missing.err());
        Path vocabOnly = dir.resolve("vocab.gguf");
        GgufWriter w = new GgufWriter();
        w.putString("general.architecture", "bert");
        SyntheticVocab.writeSpm(w, SyntheticVocab.DEFAULT_CORPUS, 300);
        w.write(vocabOnly);
        Cli notLlama = Cli.rlx("generate", vocabOnly.toString(), "hi");
        assertEquals(1, notLlama.exit());
        assertTrue(notLlama.err().contains("not a llama-family decoder"), notLlama.err());
        Path m = dir.resolve("tiny.gguf");
        assertEquals(0, Cli.rlx("gguf", "synth", m.toString(), "--type", "f16").exit());
        Cli kv = Cli.rlx("generate", m.toString(), "hi", "--kv", "q2");
        assertEquals(2, kv.exit());
        assertTrue(kv.err().contains("--kv must be"), kv.err());
        Cli chat = Cli.rlx("generate", m.toString(), "hi", "--chat", "--threads", "1");
        assertEquals(1, chat.exit());
        assertTrue(chat.err().contains("chat_template"), chat.err());
        Cli system = Cli.rlx("generate", m.toString(), "hi", "--system", "be brief");
        assertEquals(2, system.exit());
    }
}
