package dev.rlx.cli;

import dev.rlx.ir.RlxException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns what goes wrong into one line on standard error, {@code rlx <command>: <what>}, and the exit status: 2
 * for a command line that cannot be run, 1 for work that failed. The stack trace follows only under
 * {@code --verbose}.
 */
final class ErrorReporter implements IParameterExceptionHandler, IExecutionExceptionHandler {
    static final int FAILURE = 1;
    static final int USAGE = 2;

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        String name = cl.getCommandSpec().qualifiedName();
        StringBuilder line = new StringBuilder(name).append(": ").append(message(ex));
        if (ex instanceof UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            line.append(" (did you mean ").append(String.join(" or ", u.getSuggestions())).append("?)");
        }
        line.append("; see '").append(name).append(" --help'");
        report(cl, line.toString(), ex);
        return USAGE;
    }

    /** picocli's message, except that a word where a subcommand belongs is called an unknown command. */
    private static String message(ParameterException ex) {
        CommandLine cl = ex.getCommandLine();
        if (ex instanceof UnmatchedArgumentException u && !u.isUnknownOption() && !cl.getSubcommands().isEmpty()
                && cl.getCommandSpec().positionalParameters().isEmpty() && !u.getUnmatched().isEmpty()) {
            return "unknown command '" + u.getUnmatched().get(0) + "'";
        }
        return ex.getMessage();
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, ParseResult parseResult) {
        report(cl, cl.getCommandSpec().qualifiedName() + ": " + describe(ex), ex);
        return FAILURE;
    }

    private static void report(CommandLine cl, String line, Exception ex) {
        PrintWriter err = cl.getErr();
        err.println(line.replace('\n', ' '));
        if (Main.verbose(cl.getCommandSpec())) {
            ex.printStackTrace(err);
        }
        err.flush();
    }

    /** What went wrong, in words: RLX's own message, the file for file-system errors, else the exception. */
    static String describe(Throwable e) {
        return switch (e) {
            case RlxException r -> r.getMessage();
            case UncheckedIOException u when u.getCause() != null -> describe(u.getCause());
            case NoSuchFileException f -> f.getFile() + ": no such file or folder";
            case AccessDeniedException f -> f.getFile() + ": permission denied";
            case FileSystemException f -> f.getFile() + ": " + (f.getReason() == null ? "cannot access" : f.getReason());
            case IOException io -> "I/O error: " + io.getMessage();
            default -> "internal error: " + e + " (--verbose shows where)";
        };
    }
}
