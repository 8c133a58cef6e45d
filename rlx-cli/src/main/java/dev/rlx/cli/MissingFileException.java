package dev.rlx.cli;

import dev.rlx.ir.RlxException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A file named on the command line is not there (or is a folder); the message names it and where it was looked for. */
final class MissingFileException extends RlxException {
    private static final long serialVersionUID = 1L;

    private MissingFileException(String message) {
        super(message);
    }

    /**
     * Checks, before any work starts, that {@code file} (the argument {@code what}) is a regular file; relative
     * paths are from the caller's working folder.
     *
     * @throws MissingFileException otherwise
     */
    static void requireFile(Path file, String what) {
        if (!Files.isRegularFile(file)) {
            String where = file.isAbsolute() ? "" : " in " + Path.of("").toAbsolutePath();
            throw new MissingFileException(what + " " + file + ": " + (Files.isDirectory(file) ? "a folder, not a file"
                    : "no such file" + where));
        }
    }
}
