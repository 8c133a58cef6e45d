package dev.rlx.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Runs a command as {@code rlx} would, in process, capturing what it prints and its exit status. */
record Cli(int exit, String out, String err) {
    /** {@code rlx ARGS}. */
    static Cli rlx(String... args) {
        return execute(CommandLine.defaultFactory(), args);
    }

    /**
     * {@code rlx NAME ARGS} with {@code command} (an instance of a subcommand, e.g. one given fake hardware)
     * standing in for the subcommand {@code NAME} it declares.
     */
    static Cli run(Object command, String... args) {
        String name = command.getClass().getAnnotation(Command.class).name();
        List<String> all = new ArrayList<>(List.of(name));
        all.addAll(List.of(args));
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> cls) throws Exception {
                return cls == command.getClass() ? cls.cast(command) : CommandLine.defaultFactory().create(cls);
            }
        };
        return execute(factory, all.toArray(String[]::new));
    }

    private static Cli execute(CommandLine.IFactory factory, String... args) {
        CommandLine cl = Main.commandLine(factory);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Cli(exit, out.toString(), err.toString());
    }
}
