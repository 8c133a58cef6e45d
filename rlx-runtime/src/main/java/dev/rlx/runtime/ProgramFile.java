package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.ir.GraphSerializer;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A {@link Program} on disk, for the compile cache's disk layer. The file is never trusted: magic, format
 * version, RLX version, cache key and a SHA-256 of the payload are checked, and the payload is parsed with
 * bounds checks; anything off makes {@link #read} return null so the caller recompiles.
 *
 * <pre>
 * "RLXC" u16:format str:rlxVersion str:key u32:payloadLength byte[32]:sha256(payload) payload
 * payload := u32:graphLength graphBytes(GraphSerializer) u32:alignment u64:arenaBytes u64:unsharedBytes
 *            u32:slotCount (u32:node u32:output u64:offset u64:bytes u8:view u32:birth u32:death)*
 * </pre>
 */
final class ProgramFile {
    private static final byte[] MAGIC = {'R', 'L', 'X', 'C'};
    /** Bumped whenever this layout changes. */
    static final int FORMAT = 2;

    private ProgramFile() {}

    /** Writes atomically (to a temporary file, then moved into place). */
    static void write(Path file, String key, Program p) throws IOException {
        byte[] payload = payload(p);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(payload.length + 128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MAGIC);
            out.writeShort(FORMAT);
            writeStr(out, Rlx.VERSION);
            writeStr(out, key);
            out.writeInt(payload.length);
            out.write(sha256(payload));
            out.write(payload);
        }
        Files.createDirectories(file.getParent());
        Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
        try {
            Files.write(tmp, bytes.toByteArray());
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The program stored for {@code key}, or null if the file is missing, stale, corrupt or for another key. */
    static Program read(Path file, String key) {
        byte[] data;
        try {
            data = Files.readAllBytes(file);
        } catch (IOException e) {
            return null;
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(data);
            byte[] magic = new byte[4];
            b.get(magic);
            if (!Arrays.equals(magic, MAGIC) || b.getShort() != FORMAT || !Rlx.VERSION.equals(readStr(b))
                    || !key.equals(readStr(b))) {
                return null;
            }
            int length = b.getInt();
            byte[] sum = new byte[32];
            b.get(sum);
            if (length < 0 || length != b.remaining()) {
                return null;
            }
            byte[] payload = new byte[length];
            b.get(payload);
            if (!MessageDigest.isEqual(sum, sha256(payload))) {
                return null;
            }
            return parse(ByteBuffer.wrap(payload));
        } catch (RuntimeException e) {
            // BufferUnderflow, a malformed graph, an inconsistent plan: all mean "recompile"
            return null;
        }
    }

    private static byte[] payload(Program p) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            byte[] graph = GraphSerializer.toBytes(p.graph());
            out.writeInt(graph.length);
            out.write(graph);
            out.writeInt(p.plan().alignment());
            out.writeByte(p.inPlace() ? 1 : 0);
        }
        return bytes.toByteArray();
    }

    /** The graph as stored, planned again: planning is deterministic, and an offset read from disk is never trusted. */
    private static Program parse(ByteBuffer b) {
        byte[] graphBytes = new byte[b.getInt()];
        b.get(graphBytes);
        Graph g = GraphSerializer.fromBytes(graphBytes);
        int alignment = b.getInt();
        boolean inPlace = b.get() != 0;
        if (b.hasRemaining()) {
            throw new IllegalStateException("trailing bytes after the program");
        }
        return Program.plan(g, alignment, inPlace);
    }

    private static void writeStr(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readStr(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new IllegalStateException("bad string length");
        }
        byte[] s = new byte[n];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        }
    }
}
