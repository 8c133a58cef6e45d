package dev.rlx.cli;

import java.io.PrintWriter;

/**
 * A status line for long work, redrawn in place on standard error when that is a terminal and absent
 * otherwise, so logs and pipes get only the results and the errors. Whether standard error is a terminal is
 * what the {@code rlx} launcher passes as {@code -Drlx.progress=true|false}; without it, whether the JVM has
 * an interactive console.
 */
final class Progress implements AutoCloseable {
    /** Redraws closer together than this are skipped: a terminal cannot show them and they cost time. */
    private static final long MIN_REDRAW_NS = 100_000_000L;

    private final PrintWriter err;
    private final boolean on;
    private long lastDraw;
    private boolean drawn;

    Progress(PrintWriter err, boolean on) {
        this.err = err;
        this.on = on;
    }

    /** A progress line on {@code err} if standard error is a terminal, else one that prints nothing. */
    static Progress onTerminal(PrintWriter err) {
        return new Progress(err, terminal());
    }

    static boolean terminal() {
        String p = System.getProperty("rlx.progress");
        if (p != null) {
            return Boolean.parseBoolean(p);
        }
        return System.console() != null && System.console().isTerminal();
    }

    /** Shows {@code status} now. */
    void show(String status) {
        if (on) {
            draw(status);
        }
    }

    /** Shows {@code status} unless the line was redrawn less than a tenth of a second ago. */
    void update(String status) {
        if (on && System.nanoTime() - lastDraw >= MIN_REDRAW_NS) {
            draw(status);
        }
    }

    private void draw(String status) {
        err.print("\r\033[K" + status);
        err.flush();
        lastDraw = System.nanoTime();
        drawn = true;
    }

    /** Erases the line, so what follows starts on a clean one; a later {@link #show} draws it again. */
    void clear() {
        if (drawn) {
            err.print("\r\033[K");
            err.flush();
            drawn = false;
        }
    }

    /** {@link #clear}: nothing of the line is left behind, whether the work ended or failed. */
    @Override
    public void close() {
        clear();
    }
}
