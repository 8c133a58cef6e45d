package dev.rlx.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.cuda.bindings.CuResults;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.DeviceMemoryException;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.DeviceAllocator;
import dev.rlx.runtime.spi.DeviceBuffer;
import dev.rlx.runtime.spi.DeviceRuntime;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Device memory of one {@link CudaContext}: buffers from the device's default memory pool
 * ({@code cuMemAllocAsync}, ordered on the context's utility stream) where the device has pools, else
 * {@code cuMemAlloc}; zero-filled as the SPI asks. Host copies go through one pinned staging buffer
 * ({@code cuMemHostAlloc}, {@link #STAGING} bytes, chunked past that), so a copy of pageable Java memory runs at
 * the bus's speed and nothing is pinned per call.
 */
final class CudaMemory implements DeviceRuntime, DeviceAllocator {
    /** Every buffer starts on this many bytes (what cuMemAlloc guarantees; enough for any vector load). */
    static final int ALIGNMENT = 256;
    /** Bytes of the pinned staging buffer. */
    static final long STAGING = 8L << 20;

    private final CudaContext ctx;
    private final AtomicLong allocated = new AtomicLong();
    private final Object stagingLock = new Object();
    private MemorySegment staging; // allocated on first copy

    CudaMemory(CudaContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Device device() {
        return Device.CUDA;
    }

    @Override
    public DeviceAllocator allocator() {
        return this;
    }

    @Override
    public CommandStream newStream() {
        return new CudaStream(ctx, ctx.newStream());
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
        long size = Math.max(ALIGNMENT, (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT);
        ctx.bind();
        long ptr;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(JAVA_LONG);
            boolean pool = ctx.info.memoryPools() && ctx.driver.hasAsyncAlloc();
            int r = pool ? ctx.driver.cuMemAllocAsync(p, size, ctx.utilityStream) : ctx.driver.cuMemAlloc(p, size);
            if (r != CuResults.CUDA_SUCCESS) {
                String name = ctx.driver.errorName(r);
                CudaException cause = new CudaException("CUDA: " + (pool ? "cuMemAllocAsync" : "cuMemAlloc_v2")
                        + " of " + size + " bytes failed with " + name + " on " + ctx.info.name(),
                        pool ? "cuMemAllocAsync" : "cuMemAlloc_v2", r, name, null);
                throw new DeviceMemoryException(Device.CUDA, bytes, allocated.get(), cause);
            }
            ptr = p.get(JAVA_LONG, 0);
        }
        ctx.check(ctx.driver.cuMemsetD8Async(ptr, (byte) 0, size, ctx.utilityStream), "cuMemsetD8Async",
                "zeroing a new buffer");
        ctx.synchronize(ctx.utilityStream, "allocating " + size + " bytes");
        allocated.addAndGet(bytes);
        return new CudaBuffer(ptr, bytes);
    }

    @Override
    public void free(DeviceBuffer buffer) {
        CudaBuffer b = (CudaBuffer) buffer;
        if (!b.markFreed()) {
            return;
        }
        ctx.bind();
        boolean pool = ctx.info.memoryPools() && ctx.driver.hasAsyncAlloc();
        if (pool) {
            ctx.check(ctx.driver.cuMemFreeAsync(b.address, ctx.utilityStream), "cuMemFreeAsync", "freeing a buffer");
            ctx.synchronize(ctx.utilityStream, "freeing a buffer");
        } else {
            ctx.check(ctx.driver.cuMemFree(b.address), "cuMemFree_v2", "freeing a buffer");
        }
        allocated.addAndGet(-b.byteSize());
    }

    @Override
    public void copyToDevice(MemorySegment src, DeviceBuffer dst, long dstOffset) {
        write(src, (CudaBuffer) dst, dstOffset, src.byteSize());
    }

    @Override
    public void copyToHost(DeviceBuffer src, long srcOffset, MemorySegment dst) {
        read((CudaBuffer) src, srcOffset, dst, dst.byteSize());
    }

    /** Copies {@code bytes} of host {@code src} to {@code dst} at {@code offset}, through the pinned buffer. */
    void write(MemorySegment src, CudaBuffer dst, long offset, long bytes) {
        checkRange(dst, offset, bytes);
        synchronized (stagingLock) {
            MemorySegment s = staging();
            for (long at = 0; at < bytes; at += STAGING) {
                long n = Math.min(STAGING, bytes - at);
                MemorySegment.copy(src, at, s, 0, n);
                ctx.check(ctx.driver.cuMemcpyHtoDAsync(dst.address + offset + at, s, n, ctx.utilityStream),
                        "cuMemcpyHtoDAsync_v2", "copying " + n + " bytes to the device");
                ctx.synchronize(ctx.utilityStream, "copying to the device");
            }
        }
    }

    /** Copies {@code bytes} of {@code src} at {@code offset} into host {@code dst}, through the pinned buffer. */
    void read(CudaBuffer src, long offset, MemorySegment dst, long bytes) {
        checkRange(src, offset, bytes);
        synchronized (stagingLock) {
            MemorySegment s = staging();
            for (long at = 0; at < bytes; at += STAGING) {
                long n = Math.min(STAGING, bytes - at);
                ctx.check(ctx.driver.cuMemcpyDtoHAsync(s, src.address + offset + at, n, ctx.utilityStream),
                        "cuMemcpyDtoHAsync_v2", "copying " + n + " bytes from the device");
                ctx.synchronize(ctx.utilityStream, "copying from the device");
                MemorySegment.copy(s, 0, dst, at, n);
            }
        }
    }

    private static void checkRange(CudaBuffer b, long offset, long bytes) {
        if (b.isFreed()) {
            throw new IllegalStateException("the buffer was freed");
        }
        if (offset < 0 || bytes < 0 || offset + bytes > b.byteSize()) {
            throw new IndexOutOfBoundsException("bytes [" + offset + ", " + (offset + bytes) + ") of a buffer of "
                    + b.byteSize());
        }
    }

    private MemorySegment staging() {
        if (staging == null) {
            ctx.bind();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment p = a.allocate(ADDRESS);
                ctx.check(ctx.driver.cuMemHostAlloc(p, STAGING, 0), "cuMemHostAlloc", "pinning the staging buffer");
                staging = p.get(ADDRESS, 0).reinterpret(STAGING);
            }
        }
        return staging;
    }

    @Override
    public long allocatedBytes() {
        return allocated.get();
    }

    /** Releases the pinned staging buffer. */
    void close() {
        synchronized (stagingLock) {
            if (staging != null) {
                ctx.bind();
                ctx.driver.cuMemFreeHost(staging);
                staging = null;
            }
        }
    }
}
