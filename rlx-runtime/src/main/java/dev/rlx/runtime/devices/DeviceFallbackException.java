package dev.rlx.runtime.devices;

import dev.rlx.ir.RlxException;
import dev.rlx.runtime.Device;
import java.util.List;

/** Every device of a fallback chain failed; {@link #attempts()} says what happened on each, in order. */
public class DeviceFallbackException extends RlxException {
    /** What trying one device gave. */
    public record Attempt(Device device, String error) {
        @Override
        public String toString() {
            return device.label() + ": " + error;
        }
    }

    private final List<Attempt> attempts;

    public DeviceFallbackException(String graph, List<Attempt> attempts) {
        super("all backends failed for graph @" + graph + ":" + lines(attempts));
        this.attempts = List.copyOf(attempts);
    }

    private static String lines(List<Attempt> attempts) {
        StringBuilder s = new StringBuilder();
        for (Attempt a : attempts) {
            s.append("\n  ").append(a);
        }
        return s.toString();
    }

    public List<Attempt> attempts() {
        return attempts;
    }
}
