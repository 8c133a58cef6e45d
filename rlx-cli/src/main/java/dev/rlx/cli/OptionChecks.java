package dev.rlx.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Range checks of option values, failing as a usage error (exit status 2) with one wording everywhere:
 * {@code --runs must be at least 1 but is 0}, {@code --max-length must be 2..512 but is 1}.
 */
final class OptionChecks {
    private OptionChecks() {}

    /** {@code value} of {@code option} is at least {@code min}. */
    static void atLeast(CommandSpec spec, String option, long value, long min) {
        if (value < min) {
            throw new ParameterException(spec.commandLine(), option + " must be at least " + min + " but is " + value);
        }
    }

    /** {@code value} of {@code option} is in {@code [min, max]}. */
    static void between(CommandSpec spec, String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new ParameterException(spec.commandLine(), option + " must be " + min + ".." + max + " but is " + value);
        }
    }
}
