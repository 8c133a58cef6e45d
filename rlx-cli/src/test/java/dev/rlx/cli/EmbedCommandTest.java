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
import java.util.stream.Stream;
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
        assertEquals("rlx embed: --max-length must be 2..512 but is 1; see 'rlx embed --help'\n", r.err());
    }

    @Test
    @SuppressWarnings("unchecked")
    void textsComeBackAsGiven_quotesBackslashesDollarsAndEmpty() {
        List<String> odd = List.of("He said \"hi\" to me", "a \\ back\\slash \\\"", "${user.home} $HOME `x`", "", "caf\u00e9 \u65e5\u672c");
        Cli r = Cli.run(new EmbedCommand(), Stream.concat(Stream.of("--json"), odd.stream()).toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        List<Map<String, Object>> texts = (List<Map<String, Object>>) JsonTree.object(r.out()).get("texts");
        assertEquals(odd, texts.stream().map(t -> t.get("text")).toList());
        assertEquals(2L, texts.get(3).get("tokens"), "an empty text is [CLS] [SEP]");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aTextCutToTheMaximumLength_isWarnedAbout_andALongTextIsNotEchoedWhole() {
        String longText = "word ".repeat(200).trim();
        Cli r = Cli.run(new EmbedCommand(), "--threads", "1", "short one", longText);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("rlx embed: warning: text [1] has 202 tokens; only its first 128 are embedded "
                + "(--max-length takes up to 512)"), r.err());
        assertTrue(!r.err().contains("text [0]"), r.err());
        String echoed = r.out().lines().filter(l -> l.startsWith("[1] ")).findFirst().orElseThrow();
        assertEquals("[1] \"" + longText.substring(0, EmbedCommand.ECHO_CHARS - 3) + "...\" (128 of 202 tokens)", echoed);
        assertTrue(r.err().contains(" 1 thread"), "the banner gives the thread count asked for: " + r.err());

        Cli j = Cli.run(new EmbedCommand(), "--json", "--max-length", "512", longText);
        assertEquals(0, j.exit(), j.err());
        assertEquals("", j.err().lines().filter(l -> l.contains("warning")).findAny().orElse(""), "202 tokens fit in 512");
        Map<String, Object> t = ((List<Map<String, Object>>) JsonTree.object(j.out()).get("texts")).get(0);
        assertEquals(longText, t.get("text"), "JSON keeps the whole text");
        assertEquals(202L, t.get("tokens"));
        assertEquals(false, t.get("truncated"));
    }

    @Test
    void echo_escapesControlCharactersAndCutsLongTexts() {
        assertEquals("two\\nlines\\tand a \\u0007bell", EmbedCommand.echo("two\nlines\tand a \u0007bell"));
        String eighty = "x".repeat(EmbedCommand.ECHO_CHARS);
        assertEquals(eighty, EmbedCommand.echo(eighty));
        assertEquals("x".repeat(EmbedCommand.ECHO_CHARS - 3) + "...", EmbedCommand.echo(eighty + "y"));
        String emoji = "\ud83d\ude00".repeat(EmbedCommand.ECHO_CHARS + 1);
        assertEquals("\ud83d\ude00".repeat(EmbedCommand.ECHO_CHARS - 3) + "...", EmbedCommand.echo(emoji),
                "cut between code points, not inside a surrogate pair");
    }

    @Test
    void devicesAndThreads_outOfRangeOrUnknown_areUsageErrorsNamingTheChoices() {
        Cli bogus = Cli.run(new EmbedCommand(), "--device", "bogus", "x");
        assertEquals(2, bogus.exit());
        assertEquals("rlx embed: --device bogus: unknown device; this build runs on cpu, vulkan; see 'rlx embed --help'\n", bogus.err());
        Cli cuda = Cli.run(new EmbedCommand(), "--device", "nvidia", "x");
        assertEquals(2, cuda.exit());
        assertEquals("rlx embed: --device nvidia: RLX has no CUDA backend yet; this build runs on cpu, vulkan; see 'rlx embed --help'\n",
                cuda.err());
        Cli threads = Cli.run(new EmbedCommand(), "--threads", "-1", "x");
        assertEquals(2, threads.exit());
        assertEquals("rlx embed: --threads must be 0..4096 but is -1; see 'rlx embed --help'\n", threads.err());
    }
}
