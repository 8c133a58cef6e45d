package dev.rlx.runtime;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * One Chrome / Perfetto trace file shared by every traced graph of the process that names it: each closed
 * graph's events are added to what earlier graphs wrote, and after every addition the file is a complete
 * JSON document ({@code {"traceEvents":[...],"displayTimeUnit":"ms"}}). The first graph to write a path in
 * this process replaces what an earlier process left there; so does a graph that finds the file changed by
 * someone else since this process last wrote it.
 */
final class TraceFile {
    private static final byte[] HEAD = "{\"traceEvents\":[\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FOOT = "\n],\"displayTimeUnit\":\"ms\"}\n".getBytes(StandardCharsets.US_ASCII);
    private static final Map<Path, TraceFile> OPEN = new HashMap<>();

    private final Path path;
    /** Where the footer starts, and the file's size after this process's last write; -1 before the first. */
    private long eventsEnd = -1;
    private long size = -1;

    private TraceFile(Path path) {
        this.path = path;
    }

    /** The process-wide trace file for {@code path}. */
    static synchronized TraceFile of(Path path) {
        return OPEN.computeIfAbsent(path.toAbsolutePath().normalize(), TraceFile::new);
    }

    /**
     * Adds {@code events}, a comma-separated run of JSON event objects (empty adds nothing but still makes the
     * file), keeping the file a valid document.
     */
    synchronized void append(byte[] events) throws IOException {
        boolean fresh = eventsEnd < 0 || !Files.isRegularFile(path) || Files.size(path) != size;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long at;
            if (fresh) {
                ch.truncate(0);
                write(ch, 0, HEAD);
                at = HEAD.length;
            } else {
                at = eventsEnd;
                if (events.length > 0 && eventsEnd > HEAD.length) {
                    at += write(ch, at, new byte[] {','});
                }
            }
            at += write(ch, at, events);
            eventsEnd = at;
            size = at + write(ch, at, FOOT);
            ch.truncate(size);
        } catch (IOException e) {
            eventsEnd = -1; // start over next time rather than extend a file in an unknown state
            throw e;
        }
    }

    private static int write(FileChannel ch, long at, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            ch.write(b, at + b.position());
        }
        return bytes.length;
    }
}
