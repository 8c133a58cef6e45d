package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cuda.bindings.CuResults;
import dev.rlx.cuda.bindings.CudaDriver;
import dev.rlx.cuda.bindings.CudaLibrary;
import dev.rlx.cuda.bindings.LibraryLocator;
import dev.rlx.cuda.bindings.NativeLibrary;
import dev.rlx.cuda.bindings.Nvrtc;
import dev.rlx.runtime.BackendRegistry;
import dev.rlx.runtime.BackendUnavailableException;
import dev.rlx.runtime.Device;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The typed error paths of the bindings and the probe, on any machine: a missing library, a library that is not
 * the one asked for, no driver; and where a driver and device exist, a failed call named with its CUresult.
 */
class CudaProbeTest {
    private static LibraryLocator.Located as(CudaLibrary lib, String file) {
        return new LibraryLocator.Located(lib, Optional.empty(), Path.of(file), "test");
    }

    @Test
    void aMissingLibraryIsACudaExceptionNamingTheFile(@TempDir Path tmp) {
        Path gone = tmp.resolve("libcuda.so.1");
        CudaException e = assertThrows(CudaException.class, () -> NativeLibrary.open(gone));
        assertTrue(e.getMessage().contains(gone.toString()), e.getMessage());
    }

    @Test
    void aLibraryWithoutTheDriversFunctionsIsACudaExceptionNamingTheFirstMissing() {
        CudaException e = assertThrows(CudaException.class, () -> CudaDriver.load(as(CudaLibrary.DRIVER,
                "libm.so.6")));
        assertEquals("cuInit", e.call());
        assertTrue(e.getMessage().contains("libm.so.6") && e.getMessage().contains("cuInit"), e.getMessage());
        CudaException n = assertThrows(CudaException.class, () -> Nvrtc.load(as(CudaLibrary.NVRTC, "libm.so.6")));
        assertEquals("nvrtcVersion", n.call());
    }

    @Test
    void noDriverMakesTheProbeUnavailableWithTheReasonAndNeverThrows(@TempDir Path tmp) {
        Path gone = tmp.resolve("nowhere/libcuda.so.1");
        LibraryLocator l = new LibraryLocator(Map.of("RLX_CUDA_DRIVER_LIBRARY", gone.toString()), List.of(tmp));
        CudaProbe p = CudaProbe.probe(l, false);
        assertFalse(p.available());
        assertTrue(p.reason().startsWith("no CUDA driver") && p.reason().contains(gone.toString())
                && p.reason().contains("RLX_CUDA_DRIVER_LIBRARY"), p.reason());
        assertTrue(p.describe().startsWith("CUDA: not available: no CUDA driver"), p.describe());
        assertEquals(CudaLibrary.values().length, p.libraries().size());
    }

    @Test
    void theSystemProbeAgreesWithTheRegistry() {
        CudaProbe p = CudaBackend.probe();
        assertEquals(p.available(), Device.CUDA.isAvailable(), p.describe());
        if (!p.available()) {
            assertFalse(p.reason().isBlank());
            BackendUnavailableException e = assertThrows(BackendUnavailableException.class,
                    () -> BackendRegistry.global().create(Device.CUDA));
            assertTrue(e.getMessage().contains("rlx-cuda") && e.getMessage().contains(p.reason()), e.getMessage());
            assertEquals(p.reason(), BackendRegistry.global().unavailableReason(Device.CUDA));
        } else {
            assertFalse(p.devices().isEmpty());
            assertTrue(p.devices().get(0).arch().matches("sm_\\d+"), p.describe());
        }
    }

    @Test
    void aFailedDriverCallNamesTheCallAndTheResult() {
        LibraryLocator.Located d = LibraryLocator.system().locate(CudaLibrary.DRIVER);
        CudaDriver driver;
        try {
            driver = CudaDriver.load(d);
        } catch (CudaException e) {
            Assumptions.abort("no CUDA driver here: " + e.getMessage());
            return;
        }
        int r = driver.cuInit(0);
        Assumptions.assumeTrue(r == CuResults.CUDA_SUCCESS, "cuInit: " + driver.errorName(r));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment dev = a.allocate(ValueLayout.JAVA_INT);
            int bad = driver.cuDeviceGet(dev, 9999);
            CudaException e = assertThrows(CudaException.class, () -> driver.check(bad, "cuDeviceGet", "a test"));
            assertEquals("cuDeviceGet", e.call());
            assertEquals("CUDA_ERROR_INVALID_DEVICE", e.resultName());
        }
    }

    @Test
    void aSourceThatDoesNotCompileGivesNvrtcsLog() {
        Nvrtc nvrtc;
        try {
            nvrtc = Nvrtc.load(LibraryLocator.system().locate(CudaLibrary.NVRTC));
        } catch (CudaException e) {
            Assumptions.abort("no NVRTC here: " + e.getMessage());
            return;
        }
        CudaException e = assertThrows(CudaException.class, () -> nvrtc.compile(
                "extern \"C\" __global__ void k(float* x) { x[0] = undeclared; }", "bad.cu",
                Kernels.options("sm_90")));
        assertEquals("NVRTC_ERROR_COMPILATION", e.resultName());
        assertTrue(e.getMessage().contains("undeclared"), e.getMessage());
    }

    @Test
    void aBadDeviceChoiceNamesTheDevices() {
        CudaDeviceInfo d = new CudaDeviceInfo(0, "Test GPU", 9, 0, 1L << 30, 132, true, Optional.empty());
        assertEquals(0, CudaContext.chosenOrdinal(null, List.of(d)));
        assertEquals(0, CudaContext.chosenOrdinal("0", List.of(d)));
        CudaException e = assertThrows(CudaException.class, () -> CudaContext.chosenOrdinal("3", List.of(d)));
        assertTrue(e.getMessage().contains("RLX_CUDA_DEVICE=3") && e.getMessage().contains("Test GPU (sm_90"),
                e.getMessage());
    }
}
