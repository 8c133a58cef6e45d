package dev.rlx.cli;

import dev.rlx.runtime.Rlx;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * Entry point of the {@code rlx} command. Exit status: 0 on success, 1 when the work fails, 2 for a command line
 * that cannot be run (unknown option, value out of range, missing argument). Standard output carries results
 * only; errors are one line on standard error, with the stack trace under {@code --verbose}.
 */
@Command(name = "rlx", mixinStandardHelpOptions = true, version = "rlx " + Rlx.VERSION,
        description = "RLX for Java: compile and run compute graphs.",
        subcommands = {DemoCommand.class, EmbedCommand.class, SparkEmbedCommand.class, RunCommand.class, HwCommand.class,
                GpuCommand.class, DevicesCommand.class, GgufCommand.class, GenerateCommand.class, ServeCommand.class,
                OnnxConformanceCommand.class,
                AutoComplete.GenerateCompletion.class},
        footer = {"", "Exit status: 0 success, 1 failure, 2 usage error.",
                "Shell completion (bash, zsh): source <(rlx generate-completion)"})
public final class Main implements Runnable {
    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "On an error, also print its stack trace (onnx-conformance: also list each case that does not pass).")
    boolean verbose;

    @Spec
    CommandSpec spec;

    /** {@code rlx} alone prints the help. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        int status;
        try {
            status = commandLine(CommandLine.defaultFactory()).execute(args);
        } catch (OutOfMemoryError e) {
            System.err.println("rlx: out of memory (" + e.getMessage() + "); give the JVM more with RLX_JAVA_OPTS=-Xmx...");
            status = 1;
        } catch (StackOverflowError e) {
            System.err.println("rlx: stack overflow; give threads a larger stack with RLX_JAVA_OPTS=-Xss...");
            status = 1;
        }
        System.exit(status);
    }

    /** The {@code rlx} command line with its error handling; {@code factory} makes the subcommands. */
    static CommandLine commandLine(IFactory factory) {
        CommandLine cl = new CommandLine(new Main(), factory);
        ErrorReporter errors = new ErrorReporter();
        cl.setParameterExceptionHandler(errors);
        cl.setExecutionExceptionHandler(errors);
        return cl;
    }

    /** Whether {@code --verbose} was given to the command of {@code spec} or to {@code rlx} before it. */
    static boolean verbose(CommandSpec spec) {
        OptionSpec o = spec.findOption("--verbose");
        return o != null && Boolean.TRUE.equals(o.getValue());
    }
}
