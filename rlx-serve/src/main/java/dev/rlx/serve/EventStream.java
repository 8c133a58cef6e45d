package dev.rlx.serve;

import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A server-sent event stream as the OpenAI API writes it: {@code data: <json>\n\n} per chunk, flushed at once,
 * and {@code data: [DONE]\n\n} at the end. Several choices may write from their own threads (one lock). A write
 * that fails means the client went away: {@link ClientGone} is thrown, and every later write throws it too.
 */
final class EventStream implements AutoCloseable {
    /** The client closed the connection. */
    static final class ClientGone extends RuntimeException {
        ClientGone(Throwable cause) {
            super("the client closed the connection", cause, false, false);
        }
    }

    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerResponse res;
    private final ReentrantLock lock = new ReentrantLock(); // not synchronized: writers are virtual threads
    private OutputStream out;
    private ClientGone gone;

    EventStream(ServerResponse res) {
        this.res = res;
    }

    void send(JsonNode chunk) {
        byte[] json = Json.bytes(chunk);
        // one write per event, so no transfer chunk ever ends inside an event
        byte[] event = new byte[DATA.length + json.length + END.length];
        System.arraycopy(DATA, 0, event, 0, DATA.length);
        System.arraycopy(json, 0, event, DATA.length, json.length);
        System.arraycopy(END, 0, event, DATA.length + json.length, END.length);
        write(event);
    }

    void done() {
        write(DONE);
    }

    boolean clientGone() {
        lock.lock();
        try {
            return gone != null;
        } finally {
            lock.unlock();
        }
    }

    private void write(byte[] event) {
        lock.lock();
        try {
            if (gone != null) {
                throw gone;
            }
            try {
                if (out == null) {
                    res.status(200);
                    res.header(HeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
                    res.header(HeaderNames.CACHE_CONTROL, "no-cache");
                    // a client that stops reading at [DONE] and reused the connection for its next POST lost
                    // about one request in 50,000 under load ("header parser received no bytes": the server had
                    // closed it); a stream's connection is not offered for reuse
                    res.header(HeaderNames.CONNECTION, "close");
                    out = res.outputStream();
                }
                out.write(event);
                out.flush();
            } catch (IOException | RuntimeException e) { // Helidon reports a closed socket unchecked
                gone = new ClientGone(e);
                throw gone;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (out != null && gone == null) {
                out.close();
            }
        } catch (IOException | RuntimeException e) {
            gone = new ClientGone(e);
        } finally {
            lock.unlock();
        }
    }
}
