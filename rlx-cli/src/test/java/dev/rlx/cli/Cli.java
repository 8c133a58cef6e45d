package dev.rlx.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs a command as {@code rlx} would, capturing what it prints. */
record Cli(int exit, String out, String err) {
    static Cli run(Object command, String... args) {
        CommandLine cl = new CommandLine(command);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Cli(exit, out.toString(), err.toString());
    }
}
