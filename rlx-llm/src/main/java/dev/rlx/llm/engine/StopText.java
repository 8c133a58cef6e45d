package dev.rlx.llm.engine;

import java.util.List;

/**
 * Releases streamed text while watching for stop strings: text that could still be the start of a stop string
 * is held back until the next piece shows whether it is, and when a stop string completes, the text before it is
 * released and the rest dropped. Since held text is exactly what could begin a stop string, the first occurrence
 * in the held text is the first in the whole output. Not thread-safe: one per generation.
 */
final class StopText {
    private final String[] stops;
    private final StringBuilder held = new StringBuilder();
    private boolean stopped;

    StopText(List<String> stops) {
        this.stops = stops.toArray(String[]::new);
    }

    /** Whether a stop string has completed (nothing is released after that). */
    boolean stopped() {
        return stopped;
    }

    /** Adds {@code piece} and returns the text that can no longer be part of a stop string. */
    String offer(String piece) {
        if (stopped) {
            return "";
        }
        if (stops.length == 0) {
            return piece; // the common case: nothing to hold back
        }
        held.append(piece);
        int first = -1;
        for (String s : stops) {
            int at = held.indexOf(s);
            if (at >= 0 && (first < 0 || at < first)) {
                first = at;
            }
        }
        if (first >= 0) {
            stopped = true;
            return take(first);
        }
        return take(held.length() - partialStopSuffix());
    }

    /** Releases whatever is held (the generation ended without completing a stop string). */
    String flush() {
        return stopped ? "" : take(held.length());
    }

    /** Length of the longest suffix of the held text that is a proper prefix of some stop string. */
    private int partialStopSuffix() {
        int n = held.length();
        int best = 0;
        for (String s : stops) {
            for (int k = Math.min(n, s.length() - 1); k > best; k--) {
                if (regionEquals(n - k, s, k)) {
                    best = k;
                    break;
                }
            }
        }
        return best;
    }

    private boolean regionEquals(int from, String s, int k) {
        for (int i = 0; i < k; i++) {
            if (held.charAt(from + i) != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Removes and returns the first {@code n} held chars; everything after a stop goes with it. */
    private String take(int n) {
        if (n == 0) {
            if (stopped) {
                held.setLength(0);
            }
            return "";
        }
        String out = held.substring(0, n);
        if (stopped) {
            held.setLength(0);
        } else {
            held.delete(0, n);
        }
        return out;
    }
}
