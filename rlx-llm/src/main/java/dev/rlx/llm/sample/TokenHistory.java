package dev.rlx.llm.sample;

/** The last {@code capacity} accepted tokens, as llama.cpp's {@code ring_buffer}; {@link #recent}(0) is the newest. */
final class TokenHistory {
    private final int[] ring;
    private int first;
    private int size;

    TokenHistory(int capacity) {
        ring = new int[capacity];
    }

    int capacity() {
        return ring.length;
    }

    int size() {
        return size;
    }

    /** The oldest token, which {@link #push} drops next when full. */
    int oldest() {
        return ring[first];
    }

    void push(int token) {
        if (ring.length == 0) {
            return;
        }
        int pos = (first + size) % ring.length;
        if (size == ring.length) {
            first = (first + 1) % ring.length;
        } else {
            size++;
        }
        ring[pos] = token;
    }

    /** The {@code i}-th most recent token ({@code rat} in llama.cpp). */
    int recent(int i) {
        return ring[(first + size - i - 1) % ring.length];
    }

    void clear() {
        first = 0;
        size = 0;
    }
}
