package dev.rlx.vulkan;

import static org.lwjgl.vulkan.VK10.*;

import dev.rlx.runtime.spi.CommandStream;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryUtil;
import org.lwjgl.vulkan.VkCommandBuffer;
import org.lwjgl.vulkan.VkSubmitInfo;

/**
 * A command stream on the context's queue: {@link #enqueue} collects recorded command buffers, {@link #submit}
 * hands them to the queue in one submission with a fence, {@link #await} waits for that fence. Its structures are
 * allocated once, so a steady run allocates nothing on the Java heap.
 */
final class VulkanStream implements CommandStream {
    private static final int INITIAL = 16;

    private final VulkanContext ctx;
    private final long fence;
    /** The fence's handle in native memory, for the wait and reset calls that take an array. */
    private final java.nio.LongBuffer fences;
    private final VkSubmitInfo info;
    private PointerBuffer pending;
    private int count;
    private boolean inFlight;
    private boolean closed;

    VulkanStream(VulkanContext ctx) {
        this.ctx = ctx;
        this.fence = ctx.newFence();
        this.fences = MemoryUtil.memAllocLong(1).put(0, fence);
        this.info = VkSubmitInfo.calloc().sType$Default();
        this.pending = MemoryUtil.memAllocPointer(INITIAL);
    }

    /** Adds a recorded command buffer to the next submission. */
    void enqueue(VkCommandBuffer cb) {
        if (count == pending.capacity()) { // only while a graph first grows past the capacity
            pending = MemoryUtil.memRealloc(pending, pending.capacity() * 2);
        }
        pending.put(count++, cb.address());
    }

    /** Submits now and waits: for executables that read results back on the host in the middle of a run. */
    void flush() {
        submit();
        await();
    }

    @Override
    public void submit() {
        if (count == 0) {
            return;
        }
        if (inFlight) {
            await();
        }
        pending.limit(count);
        info.pCommandBuffers(pending);
        ctx.submit(info, fence);
        pending.limit(pending.capacity());
        count = 0;
        inFlight = true;
    }

    @Override
    public void await() {
        if (!inFlight) {
            return;
        }
        // The array forms on a buffer allocated once: the single-fence overloads build a buffer per call.
        long at = MemoryUtil.memAddress(fences);
        int r = nvkWaitForFences(ctx.device, 1, at, VK_TRUE, Long.MAX_VALUE);
        if (r != VK_SUCCESS) { // the message only on failure: a steady run builds no string
            VulkanException.check(r, "waiting for a run on " + ctx.info.name());
        }
        nvkResetFences(ctx.device, 1, at);
        inFlight = false;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        await();
        vkDestroyFence(ctx.device, fence, null);
        info.free();
        MemoryUtil.memFree(pending);
        MemoryUtil.memFree(fences);
    }
}
