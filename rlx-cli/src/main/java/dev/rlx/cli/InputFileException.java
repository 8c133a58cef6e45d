package dev.rlx.cli;

import dev.rlx.ir.RlxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file named on the command line is not there, is a folder, or cannot be read as what it should be; the
 * message names the argument and the file.
 */
final class InputFileException extends RlxException {
    private static final long serialVersionUID = 1L;

    private InputFileException(String message, Throwable cause) {
        super(message, cause);
    }

    /** {@code cause}, a failure to read {@code file} (the argument {@code what}), with both named. */
    static InputFileException reading(Path file, String what, RlxException cause) {
        return new InputFileException(what + " " + file + ": " + cause.getMessage(), cause);
    }

    /**
     * Checks, before any work starts, that {@code file} (the argument {@code what}) is a regular file; relative
     * paths are from the caller's working folder.
     *
     * @throws InputFileException otherwise
     */
    static void requireFile(Path file, String what) {
        if (!Files.isRegularFile(file)) {
            String where = file.isAbsolute() ? "" : " in " + Path.of("").toAbsolutePath();
            throw new InputFileException(what + " " + file + ": " + (Files.isDirectory(file) ? "a folder, not a file"
                    : "no such file" + where), null);
        }
    }
}
