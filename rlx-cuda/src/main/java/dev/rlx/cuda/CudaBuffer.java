package dev.rlx.cuda;

import dev.rlx.runtime.spi.DeviceBuffer;
import java.lang.foreign.MemorySegment;

/** A block of CUDA device memory: its device address ({@code CUdeviceptr}) and size. */
final class CudaBuffer implements DeviceBuffer {
    final long address;
    private final long bytes;
    private boolean freed;

    CudaBuffer(long address, long bytes) {
        this.address = address;
        this.bytes = bytes;
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    @Override
    public MemorySegment host() {
        return null;
    }

    @Override
    public synchronized boolean isFreed() {
        return freed;
    }

    /** Marks it freed; true the first time. */
    synchronized boolean markFreed() {
        if (freed) {
            return false;
        }
        freed = true;
        return true;
    }
}
