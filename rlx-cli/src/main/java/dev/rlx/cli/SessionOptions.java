package dev.rlx.cli;

import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import picocli.CommandLine.Option;

/** The {@code --device} and {@code --threads} options of the commands that compile and run models. */
final class SessionOptions {
    @Option(names = "--device", defaultValue = "cpu", description = "Device to run on (default: ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--threads", description = "Worker threads (default: RLX_THREADS or all cores).")
    Integer threads;

    /** A session on the chosen device with the chosen thread count. */
    Session open() {
        CompileOptions opts = threads == null ? CompileOptions.defaults() : CompileOptions.defaults().withThreads(threads);
        return new Session(Device.parse(device), opts);
    }
}
