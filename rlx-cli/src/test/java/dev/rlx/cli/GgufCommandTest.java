package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GgufCommandTest {
    @Test
    void synthQwen3_writesHeadNormsAndWideHeads(@TempDir Path dir) throws Exception {
        Path m = dir.resolve("q3.gguf");
        Cli w = Cli.rlx("gguf", "synth", m.toString(), "--arch", "qwen3", "--type", "f32", "--dim", "64",
                "--layers", "1", "--heads", "4", "--kv-heads", "2", "--ffn", "96", "--head-dim", "32");
        assertEquals(0, w.exit(), w.err());
        assertTrue(w.out().contains("qwen3, F32 weights, dim 64, 1 layers, 4/2 heads of 32, ffn 96"), w.out());
        try (GgufFile f = GgufFile.open(m)) {
            assertEquals(128, f.tensor("blk.0.attn_q.weight").dim(1)); // 4 heads of 32 from a width of 64
            assertEquals(32, f.tensor("blk.0.attn_k_norm.weight").dim(0));
            assertEquals(32, f.metadata().getInt("qwen3.attention.key_length", 1, 1 << 20));
        }
        Cli g = Cli.rlx("generate", m.toString(), "hello", "--max-tokens", "4", "--temp", "0");
        assertEquals(0, g.exit(), g.err());
    }

    @Test
    void synthThenInspect(@TempDir Path dir) throws Exception {
        Path m = dir.resolve("m.gguf");
        Cli w = Cli.rlx("gguf", "synth", m.toString(), "--type", "q4_0", "--dim", "64", "--layers", "1",
                "--heads", "4", "--kv-heads", "2", "--ffn", "96");
        assertEquals(0, w.exit(), w.err());
        assertTrue(w.out().contains("Q4_0 weights, dim 64, 1 layers, 4/2 heads of 16, ffn 96"), w.out());
        try (GgufFile f = GgufFile.open(m)) {
            assertEquals(GgmlType.Q4_0, f.tensor("blk.0.attn_q.weight").type());
            assertEquals(32, f.tensor("blk.0.attn_k.weight").dim(1));
        }
        Cli r = Cli.rlx("gguf", m.toString(), "--max-array", "2");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith(m + ": GGUF v3, " + Files.size(m) + " bytes, alignment 32"), r.out());
        assertTrue(r.out().contains("general.architecture                     \"llama\""), r.out());
        assertTrue(r.out().contains("tokenizer.ggml.tokens                    STRING["), r.out());
        assertTrue(r.out().contains("\"<unk>\", \"<s>\", ...]"), r.out());
        assertTrue(r.out().contains("blk.0.attn_k.weight              Q4_0  [64, 32]"), r.out());
    }

    @Test
    void badFile_oneLineWithOffset(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.gguf");
        Files.write(bad, new byte[] {'G', 'G', 'U', 'F', 3, 0, 0, 0, 1, 2});
        Cli r = Cli.rlx("gguf", bad.toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().startsWith("rlx gguf: ") && r.err().contains("too short"), r.err());
        Cli t = Cli.rlx("gguf", "synth", dir.resolve("x.gguf").toString(), "--type", "q4_k");
        assertEquals(2, t.exit());
        assertTrue(t.err().contains("K-quants"), t.err());
        Cli h = Cli.rlx("gguf", "synth", dir.resolve("y.gguf").toString(), "--heads", "3");
        assertEquals(2, h.exit());
        assertTrue(h.err().contains("heads must divide dim"), h.err());
    }
}
