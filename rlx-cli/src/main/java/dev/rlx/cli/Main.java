package dev.rlx.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code rlx} command. */
@Command(name = "rlx", mixinStandardHelpOptions = true, version = "rlx 0.1.0",
        description = "RLX for Java: compile and run compute graphs.",
        subcommands = {DemoCommand.class, EmbedCommand.class, RunCommand.class, HwCommand.class, GpuCommand.class, OnnxConformanceCommand.class})
public final class Main implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }
}
