package dev.rlx.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.cuda.bindings.CuResults;
import dev.rlx.cuda.bindings.Cublas;
import dev.rlx.cuda.bindings.CudaDriver;
import dev.rlx.cuda.bindings.CudaLibrary;
import dev.rlx.cuda.bindings.LibraryLocator;
import dev.rlx.cuda.bindings.Nvrtc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One CUDA device opened for RLX: the bound libraries, the device's primary context (shared with any other CUDA
 * user in the process), and a stream for allocations and copies. Every method makes the context current on the
 * calling thread first, so any thread may use it.
 */
final class CudaContext {
    final CudaDriver driver;
    final Nvrtc nvrtc;
    /** Null where cuBLAS does not load: every product then runs the tiled kernel. */
    final Cublas cublas;
    final CudaDeviceInfo info;
    final int device;
    final long context;
    /** The stream allocations, frees and host copies are ordered on. */
    final long utilityStream;

    private CudaContext(CudaDriver driver, Nvrtc nvrtc, Cublas cublas, CudaDeviceInfo info, int device,
                        long context, long utilityStream) {
        this.driver = driver;
        this.nvrtc = nvrtc;
        this.cublas = cublas;
        this.info = info;
        this.device = device;
        this.context = context;
        this.utilityStream = utilityStream;
    }

    /**
     * Opens the device {@code RLX_CUDA_DEVICE} names (an ordinal), else device 0.
     *
     * @throws CudaException naming the reason when CUDA cannot be used here
     */
    static CudaContext open() {
        CudaProbe probe = CudaProbe.system();
        if (!probe.available()) {
            throw new CudaException("CUDA is not available: " + probe.reason());
        }
        LibraryLocator locator = LibraryLocator.system();
        CudaDriver driver = CudaDriver.load(locator.locate(CudaLibrary.DRIVER));
        driver.check(driver.cuInit(0), "cuInit", "opening CUDA");
        Nvrtc nvrtc = Nvrtc.load(locator.locate(CudaLibrary.NVRTC));
        Cublas cublas;
        try {
            cublas = Cublas.load(locator.locate(CudaLibrary.CUBLAS));
        } catch (CudaException e) {
            cublas = null;
        }
        int ordinal = chosenOrdinal(System.getenv("RLX_CUDA_DEVICE"), probe.devices());
        CudaDeviceInfo info = probe.devices().get(ordinal);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment dev = a.allocate(JAVA_INT);
            driver.check(driver.cuDeviceGet(dev, ordinal), "cuDeviceGet", "opening cuda:" + ordinal);
            int d = dev.get(JAVA_INT, 0);
            MemorySegment ctx = a.allocate(JAVA_LONG);
            driver.check(driver.cuDevicePrimaryCtxRetain(ctx, d), "cuDevicePrimaryCtxRetain",
                    "opening " + info.name());
            long c = ctx.get(JAVA_LONG, 0);
            driver.check(driver.cuCtxSetCurrent(c), "cuCtxSetCurrent", "opening " + info.name());
            MemorySegment s = a.allocate(JAVA_LONG);
            driver.check(driver.cuStreamCreate(s, CudaDriver.CU_STREAM_NON_BLOCKING), "cuStreamCreate",
                    "opening " + info.name());
            return new CudaContext(driver, nvrtc, cublas, info, d, c, s.get(JAVA_LONG, 0));
        }
    }

    /** The ordinal {@code value} names, or 0 when unset; a bad one is an error naming the devices. */
    static int chosenOrdinal(String value, List<CudaDeviceInfo> devices) {
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            int i = Integer.parseInt(value.trim());
            if (i >= 0 && i < devices.size()) {
                return i;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new CudaException("RLX_CUDA_DEVICE=" + value + " names no device; the devices are "
                + devices.stream().map(CudaDeviceInfo::describe).toList());
    }

    /** Makes this context current on the calling thread. */
    void bind() {
        int r = driver.cuCtxSetCurrent(context);
        if (r != CuResults.CUDA_SUCCESS) {
            driver.check(r, "cuCtxSetCurrent", "using " + info.name());
        }
    }

    void check(int result, String call, String what) {
        if (result != CuResults.CUDA_SUCCESS) {
            driver.check(result, call, what + " on " + info.name());
        }
    }

    /** A new non-blocking stream. */
    long newStream() {
        bind();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(JAVA_LONG);
            check(driver.cuStreamCreate(s, CudaDriver.CU_STREAM_NON_BLOCKING), "cuStreamCreate", "creating a stream");
            return s.get(JAVA_LONG, 0);
        }
    }

    void synchronize(long stream, String what) {
        bind();
        check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize", what);
    }
}
