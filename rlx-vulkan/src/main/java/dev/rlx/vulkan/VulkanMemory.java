package dev.rlx.vulkan;

import static org.lwjgl.system.MemoryStack.stackPush;
import static org.lwjgl.vulkan.VK10.*;
import static org.lwjgl.vulkan.VK12.*;

import dev.rlx.runtime.Device;
import dev.rlx.runtime.DeviceMemoryException;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.DeviceAllocator;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.DeviceRuntime;
import java.lang.foreign.MemorySegment;
import java.nio.LongBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VkBufferCopy;
import org.lwjgl.vulkan.VkBufferCreateInfo;
import org.lwjgl.vulkan.VkBufferDeviceAddressInfo;
import org.lwjgl.vulkan.VkMemoryAllocateFlagsInfo;
import org.lwjgl.vulkan.VkMemoryAllocateInfo;
import org.lwjgl.vulkan.VkMemoryRequirements;

/**
 * Device memory of one {@link VulkanContext}: every buffer is a {@code VkBuffer} with a dedicated allocation in
 * device-local memory, usable as a storage buffer by address. Copies go through a mapping where the device-local
 * memory is host-visible (lavapipe, unified memory), else through a host-visible staging buffer.
 */
final class VulkanMemory implements DeviceRuntime, DeviceAllocator {
    /** Every buffer starts on this many bytes (enough for any element type and vector loads). */
    static final int ALIGNMENT = 64;

    private final VulkanContext ctx;
    private final AtomicLong allocated = new AtomicLong();

    VulkanMemory(VulkanContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Device device() {
        return Device.VULKAN;
    }

    @Override
    public DeviceAllocator allocator() {
        return this;
    }

    @Override
    public CommandStream newStream() {
        return new VulkanStream(ctx);
    }

    @Override
    public int alignment() {
        return ALIGNMENT;
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
        }
        VulkanBuffer b = create(bytes, ctx.deviceMemoryType, ctx.deviceMappable);
        fill(b);
        allocated.addAndGet(bytes);
        return b;
    }

    /** A host-visible buffer (staging, kernel arguments), mapped; not counted in {@link #allocatedBytes}. */
    VulkanBuffer allocateHostVisible(long bytes) {
        return create(bytes, ctx.stagingMemoryType, true);
    }

    private VulkanBuffer create(long bytes, int memoryType, boolean map) {
        long size = Math.max(ALIGNMENT, (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT);
        try (MemoryStack stack = stackPush()) {
            LongBuffer lp = stack.mallocLong(1);
            VulkanException.check(vkCreateBuffer(ctx.device, VkBufferCreateInfo.calloc(stack).sType$Default()
                    .size(size).sharingMode(VK_SHARING_MODE_EXCLUSIVE)
                    .usage(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT
                            | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT),
                    null, lp), "creating a buffer of " + bytes + " bytes on " + ctx.info.name());
            long buffer = lp.get(0);
            VkMemoryRequirements req = VkMemoryRequirements.calloc(stack);
            vkGetBufferMemoryRequirements(ctx.device, buffer, req);
            VkMemoryAllocateFlagsInfo flags = VkMemoryAllocateFlagsInfo.calloc(stack).sType$Default()
                    .flags(VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT);
            int r = vkAllocateMemory(ctx.device, VkMemoryAllocateInfo.calloc(stack).sType$Default()
                    .pNext(flags.address()).allocationSize(req.size()).memoryTypeIndex(memoryType), null, lp);
            if (r != VK_SUCCESS) {
                vkDestroyBuffer(ctx.device, buffer, null);
                throw new DeviceMemoryException(Device.VULKAN, bytes, allocated.get(),
                        new VulkanException(ctx.info.name() + ": " + VkResults.name(r)));
            }
            long memory = lp.get(0);
            VulkanException.check(vkBindBufferMemory(ctx.device, buffer, memory, 0), "binding buffer memory");
            long address = vkGetBufferDeviceAddress(ctx.device, VkBufferDeviceAddressInfo.calloc(stack)
                    .sType$Default().buffer(buffer));
            MemorySegment mapped = null;
            if (map) {
                PointerBuffer pp = stack.mallocPointer(1);
                VulkanException.check(vkMapMemory(ctx.device, memory, 0, size, 0, pp), "mapping buffer memory");
                mapped = MemorySegment.ofAddress(pp.get(0)).reinterpret(size);
            }
            return new VulkanBuffer(buffer, memory, address, mapped, bytes);
        }
    }

    private void fill(VulkanBuffer b) {
        if (b.mapped != null) {
            b.mapped.fill((byte) 0);
        } else {
            ctx.runOnce(cb -> vkCmdFillBuffer(cb, b.buffer, 0, VK_WHOLE_SIZE, 0));
        }
    }

    @Override
    public void free(DeviceBuffer buffer) {
        VulkanBuffer b = (VulkanBuffer) buffer;
        if (b.markFreed()) {
            allocated.addAndGet(-b.byteSize());
            release(b);
        }
    }

    /** Destroys a buffer from {@link #allocateHostVisible} or one already counted out. */
    void release(VulkanBuffer b) {
        vkDestroyBuffer(ctx.device, b.buffer, null);
        vkFreeMemory(ctx.device, b.memory, null);
    }

    @Override
    public void copyToDevice(MemorySegment src, DeviceBuffer dst, long dstOffset) {
        VulkanBuffer d = (VulkanBuffer) dst;
        checkRange(d, dstOffset, src.byteSize());
        if (d.mapped != null) {
            MemorySegment.copy(src, 0, d.mapped, dstOffset, src.byteSize());
            return;
        }
        if (src.byteSize() == 0) {
            return;
        }
        VulkanBuffer staging = allocateHostVisible(src.byteSize());
        try {
            MemorySegment.copy(src, 0, staging.mapped, 0, src.byteSize());
            copy(staging, 0, d, dstOffset, src.byteSize());
        } finally {
            release(staging);
        }
    }

    @Override
    public void copyToHost(DeviceBuffer src, long srcOffset, MemorySegment dst) {
        VulkanBuffer s = (VulkanBuffer) src;
        checkRange(s, srcOffset, dst.byteSize());
        if (s.mapped != null) {
            MemorySegment.copy(s.mapped, srcOffset, dst, 0, dst.byteSize());
            return;
        }
        if (dst.byteSize() == 0) {
            return;
        }
        VulkanBuffer staging = allocateHostVisible(dst.byteSize());
        try {
            copy(s, srcOffset, staging, 0, dst.byteSize());
            MemorySegment.copy(staging.mapped, 0, dst, 0, dst.byteSize());
        } finally {
            release(staging);
        }
    }

    /** The first {@code bytes} of {@code src} into {@code dst} at {@code dstOffset}; no allocation when mapped. */
    void write(MemorySegment src, VulkanBuffer dst, long dstOffset, long bytes) {
        if (dst.mapped != null) {
            MemorySegment.copy(src, 0, dst.mapped, dstOffset, bytes);
        } else {
            copyToDevice(src.asSlice(0, bytes), dst, dstOffset);
        }
    }

    /** {@code bytes} of {@code src} from {@code srcOffset} into {@code dst}; no allocation when mapped. */
    void read(VulkanBuffer src, long srcOffset, MemorySegment dst, long bytes) {
        if (src.mapped != null) {
            MemorySegment.copy(src.mapped, srcOffset, dst, 0, bytes);
        } else {
            copyToHost(src, srcOffset, dst.asSlice(0, bytes));
        }
    }

    private void copy(VulkanBuffer from, long fromOffset, VulkanBuffer to, long toOffset, long bytes) {
        ctx.runOnce(cb -> {
            try (MemoryStack stack = stackPush()) {
                vkCmdCopyBuffer(cb, from.buffer, to.buffer, VkBufferCopy.calloc(1, stack)
                        .srcOffset(fromOffset).dstOffset(toOffset).size(bytes));
            }
        });
    }

    private void checkRange(VulkanBuffer b, long offset, long bytes) {
        if (b.isFreed()) {
            throw new VulkanException("Vulkan: buffer of " + b.byteSize() + " bytes on " + ctx.info.name()
                    + " is freed");
        }
        if (offset < 0 || offset + bytes > b.byteSize()) {
            throw new IllegalArgumentException("bytes [" + offset + ", " + (offset + bytes) + ") are outside a buffer of "
                    + b.byteSize() + " bytes");
        }
    }

    @Override
    public long allocatedBytes() {
        return allocated.get();
    }
}
