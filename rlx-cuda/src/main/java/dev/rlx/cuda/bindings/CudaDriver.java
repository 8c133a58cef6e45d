package dev.rlx.cuda.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.cuda.CudaException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The CUDA driver API ({@code libcuda.so.1}) functions RLX calls, bound with FFM. Handles ({@code CUcontext},
 * {@code CUstream}, {@code CUdeviceptr}, ...) are {@code long}s. Each method returns the {@code CUresult};
 * {@link #check} turns a failure into a {@link CudaException} naming the call and the result. Thread-safe; every
 * call but {@link #cuInit} needs a current context on the calling thread ({@link #cuCtxSetCurrent}).
 */
public final class CudaDriver {
    private static final FunctionDescriptor I_I = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
    private static final FunctionDescriptor I_A = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    private static final FunctionDescriptor I_L = FunctionDescriptor.of(JAVA_INT, JAVA_LONG);
    private static final FunctionDescriptor I_V = FunctionDescriptor.of(JAVA_INT);

    private final NativeLibrary lib;
    private final MethodHandle init;
    private final MethodHandle driverGetVersion;
    private final MethodHandle deviceGetCount;
    private final MethodHandle deviceGet;
    private final MethodHandle deviceGetName;
    private final MethodHandle deviceGetAttribute;
    private final MethodHandle deviceTotalMem;
    private final MethodHandle primaryCtxRetain;
    private final MethodHandle primaryCtxRelease;
    private final MethodHandle ctxSetCurrent;
    private final MethodHandle ctxSynchronize;
    private final MethodHandle memAlloc;
    private final MethodHandle memFree;
    private final MethodHandle memAllocAsync;
    private final MethodHandle memFreeAsync;
    private final MethodHandle memsetD8Async;
    private final MethodHandle memcpyHtoDAsync;
    private final MethodHandle memcpyDtoHAsync;
    private final MethodHandle memcpyDtoDAsync;
    private final MethodHandle memHostAlloc;
    private final MethodHandle memFreeHost;
    private final MethodHandle streamCreate;
    private final MethodHandle streamDestroy;
    private final MethodHandle streamSynchronize;
    private final MethodHandle moduleLoadData;
    private final MethodHandle moduleUnload;
    private final MethodHandle moduleGetFunction;
    private final MethodHandle launchKernel;
    private final MethodHandle streamBeginCapture;
    private final MethodHandle streamEndCapture;
    private final MethodHandle graphInstantiate;
    private final MethodHandle graphLaunch;
    private final MethodHandle graphExecDestroy;
    private final MethodHandle graphDestroy;
    private final MethodHandle getErrorName;

    private CudaDriver(NativeLibrary lib) {
        this.lib = lib;
        init = lib.function("cuInit", I_I);
        driverGetVersion = lib.function("cuDriverGetVersion", I_A);
        deviceGetCount = lib.function("cuDeviceGetCount", I_A);
        deviceGet = lib.function("cuDeviceGet", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        deviceGetName = lib.function("cuDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        deviceGetAttribute = lib.function("cuDeviceGetAttribute",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        deviceTotalMem = lib.function("cuDeviceTotalMem_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        primaryCtxRetain = lib.function("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        primaryCtxRelease = lib.function("cuDevicePrimaryCtxRelease_v2", I_I);
        ctxSetCurrent = lib.function("cuCtxSetCurrent", I_L);
        ctxSynchronize = lib.function("cuCtxSynchronize", I_V);
        memAlloc = lib.function("cuMemAlloc_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        memFree = lib.function("cuMemFree_v2", I_L);
        memAllocAsync = lib.optionalFunction("cuMemAllocAsync",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
        memFreeAsync = lib.optionalFunction("cuMemFreeAsync", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        memsetD8Async = lib.function("cuMemsetD8Async",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, JAVA_LONG));
        memcpyHtoDAsync = lib.function("cuMemcpyHtoDAsync_v2",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
        memcpyDtoHAsync = lib.function("cuMemcpyDtoHAsync_v2",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        memcpyDtoDAsync = lib.function("cuMemcpyDtoDAsync_v2",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        memHostAlloc = lib.function("cuMemHostAlloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        memFreeHost = lib.function("cuMemFreeHost", I_A);
        streamCreate = lib.function("cuStreamCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        streamDestroy = lib.function("cuStreamDestroy_v2", I_L);
        streamSynchronize = lib.function("cuStreamSynchronize", I_L);
        moduleLoadData = lib.function("cuModuleLoadData", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        moduleUnload = lib.function("cuModuleUnload", I_L);
        moduleGetFunction = lib.function("cuModuleGetFunction",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
        launchKernel = lib.function("cuLaunchKernel", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS));
        streamBeginCapture = lib.function("cuStreamBeginCapture_v2",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
        streamEndCapture = lib.function("cuStreamEndCapture", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        graphInstantiate = lib.function("cuGraphInstantiateWithFlags",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
        graphLaunch = lib.function("cuGraphLaunch", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        graphExecDestroy = lib.function("cuGraphExecDestroy", I_L);
        graphDestroy = lib.function("cuGraphDestroy", I_L);
        getErrorName = lib.function("cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }

    /**
     * Binds the driver at {@code located} (a file, or the loader's name for it).
     *
     * @throws CudaException naming the file when it does not load or lacks a function RLX needs
     */
    public static CudaDriver load(LibraryLocator.Located located) {
        return new CudaDriver(NativeLibrary.open(located.target()));
    }

    public NativeLibrary library() {
        return lib;
    }

    /** Whether the driver has the stream-ordered allocator ({@code cuMemAllocAsync}, CUDA 11.2+). */
    public boolean hasAsyncAlloc() {
        return memAllocAsync != null && memFreeAsync != null;
    }

    /** The name of {@code result}: the driver's own, else {@link CuResults}'. */
    public String errorName(int result) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int r = (int) getErrorName.invokeExact(result, p);
            MemorySegment s = p.get(ADDRESS, 0);
            if (r == 0 && !s.equals(MemorySegment.NULL)) {
                return s.reinterpret(256).getString(0);
            }
        } catch (Throwable e) {
            // fall back to the table
        }
        return CuResults.name(result);
    }

    /** Throws unless {@code result} is {@code CUDA_SUCCESS}: {@code call} is the function, {@code what} the work. */
    public void check(int result, String call, String what) {
        if (result != CuResults.CUDA_SUCCESS) {
            String name = errorName(result);
            throw new CudaException("CUDA: " + call + " failed with " + name + " while " + what, call, result, name,
                    null);
        }
    }

    private static CudaException broken(String call, Throwable e) {
        return new CudaException("CUDA: calling " + call + " failed: " + e, call, 0, null, e);
    }

    public int cuInit(int flags) {
        try {
            return (int) init.invokeExact(flags);
        } catch (Throwable e) {
            throw broken("cuInit", e);
        }
    }

    public int cuDriverGetVersion(MemorySegment version) {
        try {
            return (int) driverGetVersion.invokeExact(version);
        } catch (Throwable e) {
            throw broken("cuDriverGetVersion", e);
        }
    }

    public int cuDeviceGetCount(MemorySegment count) {
        try {
            return (int) deviceGetCount.invokeExact(count);
        } catch (Throwable e) {
            throw broken("cuDeviceGetCount", e);
        }
    }

    public int cuDeviceGet(MemorySegment device, int ordinal) {
        try {
            return (int) deviceGet.invokeExact(device, ordinal);
        } catch (Throwable e) {
            throw broken("cuDeviceGet", e);
        }
    }

    public int cuDeviceGetName(MemorySegment name, int len, int device) {
        try {
            return (int) deviceGetName.invokeExact(name, len, device);
        } catch (Throwable e) {
            throw broken("cuDeviceGetName", e);
        }
    }

    public int cuDeviceGetAttribute(MemorySegment value, int attribute, int device) {
        try {
            return (int) deviceGetAttribute.invokeExact(value, attribute, device);
        } catch (Throwable e) {
            throw broken("cuDeviceGetAttribute", e);
        }
    }

    public int cuDeviceTotalMem(MemorySegment bytes, int device) {
        try {
            return (int) deviceTotalMem.invokeExact(bytes, device);
        } catch (Throwable e) {
            throw broken("cuDeviceTotalMem_v2", e);
        }
    }

    public int cuDevicePrimaryCtxRetain(MemorySegment ctx, int device) {
        try {
            return (int) primaryCtxRetain.invokeExact(ctx, device);
        } catch (Throwable e) {
            throw broken("cuDevicePrimaryCtxRetain", e);
        }
    }

    public int cuDevicePrimaryCtxRelease(int device) {
        try {
            return (int) primaryCtxRelease.invokeExact(device);
        } catch (Throwable e) {
            throw broken("cuDevicePrimaryCtxRelease_v2", e);
        }
    }

    public int cuCtxSetCurrent(long ctx) {
        try {
            return (int) ctxSetCurrent.invokeExact(ctx);
        } catch (Throwable e) {
            throw broken("cuCtxSetCurrent", e);
        }
    }

    public int cuCtxSynchronize() {
        try {
            return (int) ctxSynchronize.invokeExact();
        } catch (Throwable e) {
            throw broken("cuCtxSynchronize", e);
        }
    }

    public int cuMemAlloc(MemorySegment ptr, long bytes) {
        try {
            return (int) memAlloc.invokeExact(ptr, bytes);
        } catch (Throwable e) {
            throw broken("cuMemAlloc_v2", e);
        }
    }

    public int cuMemFree(long ptr) {
        try {
            return (int) memFree.invokeExact(ptr);
        } catch (Throwable e) {
            throw broken("cuMemFree_v2", e);
        }
    }

    public int cuMemAllocAsync(MemorySegment ptr, long bytes, long stream) {
        try {
            return (int) memAllocAsync.invokeExact(ptr, bytes, stream);
        } catch (Throwable e) {
            throw broken("cuMemAllocAsync", e);
        }
    }

    public int cuMemFreeAsync(long ptr, long stream) {
        try {
            return (int) memFreeAsync.invokeExact(ptr, stream);
        } catch (Throwable e) {
            throw broken("cuMemFreeAsync", e);
        }
    }

    public int cuMemsetD8Async(long ptr, byte value, long count, long stream) {
        try {
            return (int) memsetD8Async.invokeExact(ptr, value, count, stream);
        } catch (Throwable e) {
            throw broken("cuMemsetD8Async", e);
        }
    }

    public int cuMemcpyHtoDAsync(long dst, MemorySegment src, long bytes, long stream) {
        try {
            return (int) memcpyHtoDAsync.invokeExact(dst, src, bytes, stream);
        } catch (Throwable e) {
            throw broken("cuMemcpyHtoDAsync_v2", e);
        }
    }

    public int cuMemcpyDtoHAsync(MemorySegment dst, long src, long bytes, long stream) {
        try {
            return (int) memcpyDtoHAsync.invokeExact(dst, src, bytes, stream);
        } catch (Throwable e) {
            throw broken("cuMemcpyDtoHAsync_v2", e);
        }
    }

    public int cuMemcpyDtoDAsync(long dst, long src, long bytes, long stream) {
        try {
            return (int) memcpyDtoDAsync.invokeExact(dst, src, bytes, stream);
        } catch (Throwable e) {
            throw broken("cuMemcpyDtoDAsync_v2", e);
        }
    }

    public int cuMemHostAlloc(MemorySegment ptr, long bytes, int flags) {
        try {
            return (int) memHostAlloc.invokeExact(ptr, bytes, flags);
        } catch (Throwable e) {
            throw broken("cuMemHostAlloc", e);
        }
    }

    public int cuMemFreeHost(MemorySegment ptr) {
        try {
            return (int) memFreeHost.invokeExact(ptr);
        } catch (Throwable e) {
            throw broken("cuMemFreeHost", e);
        }
    }

    public int cuStreamCreate(MemorySegment stream, int flags) {
        try {
            return (int) streamCreate.invokeExact(stream, flags);
        } catch (Throwable e) {
            throw broken("cuStreamCreate", e);
        }
    }

    public int cuStreamDestroy(long stream) {
        try {
            return (int) streamDestroy.invokeExact(stream);
        } catch (Throwable e) {
            throw broken("cuStreamDestroy_v2", e);
        }
    }

    public int cuStreamSynchronize(long stream) {
        try {
            return (int) streamSynchronize.invokeExact(stream);
        } catch (Throwable e) {
            throw broken("cuStreamSynchronize", e);
        }
    }

    public int cuModuleLoadData(MemorySegment module, MemorySegment image) {
        try {
            return (int) moduleLoadData.invokeExact(module, image);
        } catch (Throwable e) {
            throw broken("cuModuleLoadData", e);
        }
    }

    public int cuModuleUnload(long module) {
        try {
            return (int) moduleUnload.invokeExact(module);
        } catch (Throwable e) {
            throw broken("cuModuleUnload", e);
        }
    }

    public int cuModuleGetFunction(MemorySegment function, long module, MemorySegment name) {
        try {
            return (int) moduleGetFunction.invokeExact(function, module, name);
        } catch (Throwable e) {
            throw broken("cuModuleGetFunction", e);
        }
    }

    /** {@code params}: an array of pointers, one to each kernel parameter's value. */
    public int cuLaunchKernel(long function, int gx, int gy, int gz, int bx, int by, int bz, int sharedBytes,
                              long stream, MemorySegment params) {
        try {
            return (int) launchKernel.invokeExact(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, params,
                    MemorySegment.NULL);
        } catch (Throwable e) {
            throw broken("cuLaunchKernel", e);
        }
    }

    /** Capture modes of {@code cuStreamBeginCapture}. */
    public static final int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
    /** {@code cuStreamCreate} flag: no implicit synchronisation with the legacy default stream. */
    public static final int CU_STREAM_NON_BLOCKING = 1;
    /** {@code cuDeviceGetAttribute} attributes. */
    public static final int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
    public static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
    public static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
    public static final int CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;

    public int cuStreamBeginCapture(long stream, int mode) {
        try {
            return (int) streamBeginCapture.invokeExact(stream, mode);
        } catch (Throwable e) {
            throw broken("cuStreamBeginCapture_v2", e);
        }
    }

    public int cuStreamEndCapture(long stream, MemorySegment graph) {
        try {
            return (int) streamEndCapture.invokeExact(stream, graph);
        } catch (Throwable e) {
            throw broken("cuStreamEndCapture", e);
        }
    }

    public int cuGraphInstantiate(MemorySegment exec, long graph, long flags) {
        try {
            return (int) graphInstantiate.invokeExact(exec, graph, flags);
        } catch (Throwable e) {
            throw broken("cuGraphInstantiateWithFlags", e);
        }
    }

    public int cuGraphLaunch(long exec, long stream) {
        try {
            return (int) graphLaunch.invokeExact(exec, stream);
        } catch (Throwable e) {
            throw broken("cuGraphLaunch", e);
        }
    }

    public int cuGraphExecDestroy(long exec) {
        try {
            return (int) graphExecDestroy.invokeExact(exec);
        } catch (Throwable e) {
            throw broken("cuGraphExecDestroy", e);
        }
    }

    public int cuGraphDestroy(long graph) {
        try {
            return (int) graphDestroy.invokeExact(graph);
        } catch (Throwable e) {
            throw broken("cuGraphDestroy", e);
        }
    }
}
