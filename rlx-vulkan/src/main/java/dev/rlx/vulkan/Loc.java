package dev.rlx.vulkan;

/** Bytes {@code [offset, offset + bytes)} of a device buffer: where a value of a compiled graph lives. */
record Loc(VulkanBuffer buffer, long offset, long bytes) {
    long address() {
        return buffer.address + offset;
    }

    boolean overlaps(Loc o) {
        return buffer == o.buffer && offset < o.offset + o.bytes && o.offset < offset + bytes;
    }
}
