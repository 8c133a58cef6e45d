package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cuda.bindings.CudaLibrary;
import dev.rlx.cuda.bindings.LibraryLocator;
import dev.rlx.cuda.bindings.LibraryLocatorAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the CUDA libraries are looked for: variables, folders in order, versions, and the wheels' layout. */
class LibraryLocatorTest {
    @TempDir
    Path tmp;

    private Path touch(Path p) throws IOException {
        Files.createDirectories(p.getParent());
        return Files.writeString(p, "not a library");
    }

    @Test
    void picksTheHighestMajorVersionAndIgnoresOtherLibrariesOfSimilarNames() throws IOException {
        Path lib = tmp.resolve("lib64");
        touch(lib.resolve("libnvrtc.so.12"));
        Path v13 = touch(lib.resolve("libnvrtc.so.13"));
        touch(lib.resolve("libnvrtc.so.13.0.88"));
        touch(lib.resolve("libnvrtc-builtins.so.14"));
        touch(lib.resolve("libcublasLt.so.13"));
        Path cublas = touch(lib.resolve("libcublas.so.13"));
        LibraryLocator l = new LibraryLocator(Map.of(), List.of(tmp.resolve("missing"), lib));
        LibraryLocator.Located nvrtc = l.locate(CudaLibrary.NVRTC);
        assertEquals(v13, nvrtc.path().orElseThrow());
        assertEquals(v13, nvrtc.target());
        assertTrue(nvrtc.how().contains(lib.toString()), nvrtc.how());
        assertEquals(cublas, l.locate(CudaLibrary.CUBLAS).path().orElseThrow());
    }

    @Test
    void earlierFoldersWin() throws IOException {
        Path first = touch(tmp.resolve("a/libcuda.so.1"));
        touch(tmp.resolve("b/libcuda.so.2"));
        LibraryLocator l = new LibraryLocator(Map.of(), List.of(tmp.resolve("a"), tmp.resolve("b")));
        assertEquals(first, l.locate(CudaLibrary.DRIVER).path().orElseThrow());
    }

    @Test
    void aVariableNamesTheFileAndAMissingOneIsReportedNotReplaced() throws IOException {
        Path mine = touch(tmp.resolve("custom/my-nvrtc.so"));
        touch(tmp.resolve("lib/libnvrtc.so.13"));
        List<Path> folders = List.of(tmp.resolve("lib"));
        LibraryLocator set = new LibraryLocator(Map.of("RLX_CUDA_NVRTC_LIBRARY", mine.toString()), folders);
        assertEquals(mine, set.locate(CudaLibrary.NVRTC).path().orElseThrow());

        Path gone = tmp.resolve("nowhere/libcuda.so.1");
        LibraryLocator missing = new LibraryLocator(Map.of("RLX_CUDA_DRIVER_LIBRARY", gone.toString()), folders);
        LibraryLocator.Located d = missing.locate(CudaLibrary.DRIVER);
        assertFalse(d.found());
        assertEquals(gone, d.target(), "the error will name the file the variable gave");
        assertTrue(d.how().contains("RLX_CUDA_DRIVER_LIBRARY") && d.how().contains("names no file"), d.how());
    }

    @Test
    void nothingFoundLeavesItToTheLoaderAndSaysWhereItLooked() {
        LibraryLocator l = new LibraryLocator(Map.of(), List.of(tmp));
        LibraryLocator.Located c = l.locate(CudaLibrary.CUBLAS);
        assertFalse(c.found());
        assertEquals(Path.of("libcublas.so"), c.target());
        assertTrue(c.how().contains(tmp.toString()) && c.how().contains("RLX_CUDA_CUBLAS_LIBRARY"), c.how());
    }

    @Test
    void pythonWheelFoldersAndCudaHomeAreSearched() throws IOException {
        Path venv = tmp.resolve("venv");
        Path wheel = touch(venv.resolve("lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13"));
        Path home = tmp.resolve("cuda-home");
        Files.createDirectories(home.resolve("targets/x86_64-linux/lib"));
        List<Path> folders = LibraryLocatorAccess.defaultFolders(Map.of("VIRTUAL_ENV", venv.toString(),
                "CUDA_HOME", home.toString()));
        assertTrue(folders.contains(wheel.getParent()), folders.toString());
        assertTrue(folders.contains(home.resolve("targets/x86_64-linux/lib")), folders.toString());
        assertTrue(folders.indexOf(home.resolve("targets/x86_64-linux/lib")) < folders.indexOf(wheel.getParent()),
                "a toolkit named by CUDA_HOME comes before the wheels");
        assertEquals(wheel, new LibraryLocator(Map.of(), List.of(wheel.getParent())).locate(CudaLibrary.NVRTC)
                .path().orElseThrow());
    }
}
