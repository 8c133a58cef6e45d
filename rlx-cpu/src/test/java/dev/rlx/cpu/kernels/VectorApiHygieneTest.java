package dev.rlx.cpu.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps Vector API calls whose fallback goes through a heap segment out of the main sources (see
 * {@link VectorMath}'s class comment): until C2 compiles them, {@code reinterpretAs...}, {@code viewAs...},
 * {@code toShuffle} and the one-vector {@code selectFrom} store the vector into a {@code byte[]} segment,
 * and that single heap segment in the JDK's shared load/store profile slows every vector store C2 compiles
 * afterwards, in every kernel. The two-vector {@code selectFrom(a, b)} falls back to plain arrays and is fine.
 */
class VectorApiHygieneTest {
    /** Calls whose fallback reinterprets through a heap byte segment. */
    static final Pattern FORBIDDEN = Pattern.compile(
            "\\.(reinterpretAs\\w+|viewAs\\w+|reinterpretShape|toShuffle)\\s*\\("
                    + "|\\bREINTERPRET_\\w+"
                    + "|\\.selectFrom\\s*\\(\\s*[\\w.]+\\s*\\)");

    static List<String> offences(String source) {
        List<String> found = new ArrayList<>();
        String[] lines = source.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String code = lines[i].replaceFirst("//.*", "");
            if (code.trim().startsWith("*")) {
                continue; // javadoc and block comments may name them
            }
            Matcher m = FORBIDDEN.matcher(code);
            while (m.find()) {
                found.add("line " + (i + 1) + ": " + m.group());
            }
        }
        return found;
    }

    @Test
    void patternCatchesTheFallbacksAndSparesTheSafeForms() {
        assertEquals(1, offences("IntVector b = t.reinterpretAsInts().add(1);").size());
        assertEquals(1, offences("var v = x.viewAsIntegralLanes();").size());
        assertEquals(1, offences("FloatVector s = m.selectFrom(TABLE);").size());
        assertEquals(1, offences("var sh = idx.toShuffle();").size());
        assertEquals(0, offences("FloatVector s = m.selectFrom(LO, HI);").size());
        assertEquals(0, offences("// m.selectFrom(TABLE) would pollute").size());
        assertEquals(0, offences(" * {@code reinterpretAsInts()} is not used").size());
    }

    @Test
    void mainSourcesUseNoVectorCallThatFallsBackThroughAHeapSegment() throws IOException {
        List<Path> roots = Stream.of("src/main/java", "../rlx-runtime/src/main/java")
                .map(Path::of).filter(Files::isDirectory).toList();
        assertTrue(roots.contains(Path.of("src/main/java")), "run from the rlx-cpu module directory");
        List<String> offences = new ArrayList<>();
        int vectorFiles = 0;
        for (Path root : roots) {
            List<Path> files;
            try (Stream<Path> s = Files.walk(root)) {
                files = s.filter(p -> p.toString().endsWith(".java")).toList();
            }
            for (Path f : files) {
                String source = Files.readString(f);
                if (!source.contains("jdk.incubator.vector")) {
                    continue;
                }
                vectorFiles++;
                for (String o : offences(source)) {
                    offences.add(f + " " + o);
                }
            }
        }
        assertTrue(vectorFiles >= 10, "expected the kernels' Vector API sources, found " + vectorFiles);
        assertTrue(offences.isEmpty(), "Vector API calls that fall back through a heap segment:\n"
                + String.join("\n", offences));
    }

    /**
     * No heap segment in the CPU backend's sources: one given to {@code FloatVector.fromMemorySegment} anywhere in
     * the process makes that method's shared type profile bimorphic, and C2 then tests the segment's class on
     * every vector load of every kernel it compiles afterwards (paged attention's float-array rows made the Q8_0
     * decode matmul 2.5x slower). Arrays reach kernels through {@code MemorySegment.copy} into native memory.
     */
    @Test
    void cpuSourcesCreateNoHeapSegments() throws IOException {
        Pattern heap = Pattern.compile("MemorySegment\\.ofArray\\s*\\(");
        List<String> offences = new ArrayList<>();
        try (Stream<Path> s = Files.walk(Path.of("src/main/java"))) {
            for (Path f : s.filter(p -> p.toString().endsWith(".java")).toList()) {
                String[] lines = Files.readString(f).split("\n");
                for (int i = 0; i < lines.length; i++) {
                    String code = lines[i].replaceFirst("//.*", "");
                    if (!code.trim().startsWith("*") && heap.matcher(code).find()) {
                        offences.add(f + " line " + (i + 1));
                    }
                }
            }
        }
        assertTrue(offences.isEmpty(), "heap segments in the CPU backend:\n" + String.join("\n", offences));
    }
}
