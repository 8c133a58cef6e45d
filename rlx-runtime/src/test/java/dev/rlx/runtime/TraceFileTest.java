package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceFileTest {
    private static byte[] events(String... names) {
        List<String> objects = new ArrayList<>();
        for (String n : names) {
            objects.add("{\"name\":\"" + n + "\",\"ph\":\"X\"}");
        }
        return String.join(",", objects).getBytes(StandardCharsets.UTF_8);
    }

    /** The event names in a trace document; fails unless the whole file is one JSON object. */
    private static List<String> names(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        try (JsonParser p = new JsonFactory().createParser(Files.readAllBytes(file))) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            assertEquals("traceEvents", p.nextFieldName());
            assertEquals(JsonToken.START_ARRAY, p.nextToken());
            while (p.nextToken() == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    p.nextToken();
                    if (field.equals("name")) {
                        out.add(p.getText());
                    }
                }
            }
            assertEquals(JsonToken.END_ARRAY, p.currentToken());
            assertEquals("displayTimeUnit", p.nextFieldName());
            p.nextToken();
            assertEquals(JsonToken.END_OBJECT, p.nextToken());
            assertEquals(null, p.nextToken(), "nothing after the document");
        }
        return out;
    }

    @Test
    void everyAppendKeepsEarlierEventsAndAValidDocument(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("t.json");
        Files.writeString(f, "left by an earlier process, replaced by the first append");
        TraceFile t = TraceFile.of(f);
        t.append(events("a1", "a2"));
        assertEquals(List.of("a1", "a2"), names(f));
        t.append(events());
        assertEquals(List.of("a1", "a2"), names(f), "a graph with no events adds nothing");
        t.append(events("b1"));
        t.append(events("c1", "c2", "c3"));
        assertEquals(List.of("a1", "a2", "b1", "c1", "c2", "c3"), names(f));
        assertTrue(TraceFile.of(dir.resolve(".").resolve("t.json")) == t, "one instance per file, however it is named");
    }

    @Test
    void firstGraphWithoutEvents_thenOneWithEvents(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("t.json");
        TraceFile t = TraceFile.of(f);
        t.append(events());
        assertEquals(List.of(), names(f));
        t.append(events("x"));
        assertEquals(List.of("x"), names(f));
    }

    @Test
    void aFileChangedBehindItsBack_isStartedAfresh(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("t.json");
        TraceFile t = TraceFile.of(f);
        t.append(events("old"));
        Files.delete(f);
        t.append(events("new"));
        assertEquals(List.of("new"), names(f));
        Files.writeString(f, "{}");
        t.append(events("newer"));
        assertEquals(List.of("newer"), names(f));
    }
}
