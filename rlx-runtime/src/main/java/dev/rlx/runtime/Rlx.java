package dev.rlx.runtime;

import java.util.Locale;

/** Library-wide facts and settings read from the environment. */
public final class Rlx {
    private Rlx() {}

    /** The RLX version; part of every cache key, so an upgrade never reuses older compiled programs. */
    public static final String VERSION = "0.1.0";

    /**
     * The value of setting {@code name} (an {@code RLX_*} name): a Java system property of that name wins
     * over the environment variable, so tests and embedding applications can set it in-process. Null when
     * neither is set.
     */
    public static String setting(String name) {
        String p = System.getProperty(name);
        return p != null ? p : System.getenv(name);
    }

    /** {@link #setting} parsed as an int, or {@code fallback} when unset or not a number. */
    public static int intSetting(String name, int fallback) {
        String v = setting(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    /** True for "1", "true", "yes", "on" (case-insensitive). */
    static boolean truthy(String v) {
        return v != null && switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on" -> true;
            default -> false;
        };
    }
}
