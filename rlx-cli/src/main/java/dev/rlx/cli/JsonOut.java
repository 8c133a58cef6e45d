package dev.rlx.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/** JSON on a command's output: one document per call, pretty for people or one line per document for streams. */
final class JsonOut {
    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonOut() {}

    /** What one document writes. */
    interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    /** Writes one document and a newline; the writer stays open. */
    static void write(PrintWriter out, boolean pretty, Body body) {
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            if (pretty) {
                g.useDefaultPrettyPrinter();
            }
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println();
        out.flush();
    }

    /** A field whose absent value is JSON {@code null}. */
    static void number(JsonGenerator g, String name, Number v) throws IOException {
        g.writeFieldName(name);
        switch (v) {
            case null -> g.writeNull();
            case Integer i -> g.writeNumber(i);
            case Long l -> g.writeNumber(l);
            default -> g.writeNumber(v.doubleValue());
        }
    }

    /** A count or size where 0 means "unknown": written as {@code null}. */
    static void known(JsonGenerator g, String name, long v) throws IOException {
        number(g, name, v > 0 ? (Number) v : null);
    }
}
